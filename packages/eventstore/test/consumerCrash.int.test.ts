import { fileURLToPath } from "node:url";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { uniqueName } from "@argus/testkit";
import { expect, it } from "vitest";
import { createEventStore, ensureConsumer, ensureStream } from "../src/index.ts";
import { encodeEvent } from "../src/messages/eventCodec.ts";
import { createSchema, eventually, schemaName, spawnFixture, fileEnv } from "./support.ts";

const fixture = fileURLToPath(new URL("./fixtures/consumerProcess.ts", import.meta.url));
const file = fileEnv();

it("has no second effect when the consumer process dies between its commit and its ack", async () => {
  const schema = schemaName("crash");
  const root = uniqueName("t");
  const stream = uniqueName("CRASH");
  const durable = uniqueName("projection");
  await createSchema(file.env.pool, schema, "CREATE TABLE effects (event_id uuid NOT NULL)");
  const nc = file.nc;
  await ensureStream(nc, { name: stream, subjects: [`${root}.>`] });
  await ensureConsumer(nc, {
    stream,
    durable,
    filterSubjects: [`${root}.>`],
    maxDeliver: 5,
    ackWaitMs: 1000,
  });
  const store = createEventStore({ pool: file.env.pool, schema });
  const [event] = await store.transaction((tx) =>
    tx.append("item-1", 0, [{ type: "ItemChanged", data: {} }]),
  );

  const start = async (name: string, extra: Record<string, string>) => {
    const child = await spawnFixture(file, name, fixture, {
      DATABASE_URL: file.env.url,
      NATS_URL: file.env.natsUrl,
      SCHEMA: schema,
      STREAM: stream,
      DURABLE: durable,
      ...extra,
    });
    return child;
  };

  const doomed = await start("doomed", { DIE_AFTER_COMMIT: "1" });
  await jetstream(nc).publish(`${root}.svc.item.ItemChanged`, encodeEvent(event!), {
    msgID: event!.eventId,
  });
  await eventually("the doomed consumer's commit", async () => {
    const { rows } = await file.env.pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".effects`,
    );
    return rows[0].n === 1 ? true : undefined;
  });
  expect(await doomed.stop("SIGTERM")).toBe(null); // it was already gone: killed by its own SIGKILL

  const survivor = await start("survivor", {});
  await eventually("the redelivery to be recognised", async () =>
    survivor.output().includes("redelivered event was already processed") ? true : undefined,
  );
  const info = await (await jetstreamManager(nc)).consumers.info(stream, durable);
  expect(info.delivered.consumer_seq).toBe(2);
  const { rows } = await file.env.pool.query(`SELECT event_id FROM "${schema}".effects`);
  expect(rows).toEqual([{ event_id: event!.eventId }]);
  expect(survivor.output()).not.toContain('"msg":"handling"');
  await survivor.stop("SIGTERM");
});
