import { jetstreamManager } from "@nats-io/jetstream";
import { millis } from "@nats-io/nats-core";
import { uniqueName } from "@argus/testkit";
import { describe, expect, it } from "vitest";
import { ensureConsumer, ensureStream } from "../src/index.ts";
import { fileEnv } from "./support.ts";

const file = fileEnv(1);

describe("management step", () => {
  it("creates a stream once, even from concurrent starts, and updates what changed", async () => {
    const name = uniqueName("MGMT");
    const root = uniqueName("t");
    const infos = await Promise.all(
      Array.from({ length: 4 }, () => ensureStream(file.nc, { name, subjects: [`${root}.>`] })),
    );
    expect(new Set(infos.map((i) => i.config.name))).toEqual(new Set([name]));
    expect(millis(infos[0]!.config.duplicate_window)).toBe(120_000);
    const updated = await ensureStream(file.nc, {
      name,
      subjects: [`${root}.>`],
      duplicateWindowMs: 300_000,
    });
    expect(millis(updated.config.duplicate_window)).toBe(300_000);
    expect((await (await jetstreamManager(file.nc)).streams.info(name)).config.subjects).toEqual([
      `${root}.>`,
    ]);
  });

  it("creates a durable explicit-ack consumer once, and updates its limits", async () => {
    const stream = uniqueName("MGMT");
    const root = uniqueName("t");
    const durable = uniqueName("audit");
    await ensureStream(file.nc, { name: stream, subjects: [`${root}.>`] });
    const options = {
      stream,
      durable,
      filterSubjects: [`${root}.>`],
      maxDeliver: 5,
      ackWaitMs: 30_000,
    };
    const infos = await Promise.all(
      Array.from({ length: 3 }, () => ensureConsumer(file.nc, options)),
    );
    expect(infos[0]!.config).toMatchObject({
      durable_name: durable,
      ack_policy: "explicit",
      max_deliver: 5,
      filter_subject: `${root}.>`,
    });
    const updated = await ensureConsumer(file.nc, { ...options, maxDeliver: 8, ackWaitMs: 5_000 });
    expect(updated.config.max_deliver).toBe(8);
    expect(millis(updated.config.ack_wait ?? 0)).toBe(5_000);
    const all = await (await jetstreamManager(file.nc)).consumers.list(stream).next();
    expect(all.map((c) => c.name)).toEqual([durable]);
  });
});
