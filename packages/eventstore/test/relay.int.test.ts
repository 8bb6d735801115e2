import { jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import { uniqueName } from "@argus/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  createEventStore,
  createRelay,
  defaultSubject,
  ensureStream,
  withJsonText,
} from "../src/index.ts";
import { decodeEvent, decodeEventLazily } from "../src/messages/eventCodec.ts";
import { HELD_MIN_BYTES, heldAppended, releaseAppended } from "../src/streams/appendedData.ts";
import { loadRelayCheckpoint } from "../src/relay/relayCheckpoint.ts";
import {
  createSchema,
  eventually,
  quietLogger,
  recordingLogger,
  schemaName,
  fileEnv,
} from "./support.ts";

const file = fileEnv();

async function setup() {
  const schema = schemaName("relay");
  const root = uniqueName("t");
  const stream = uniqueName("RELAY");
  await createSchema(file.env.pool, schema);
  const store = createEventStore({ pool: file.env.pool, schema });
  const subject = defaultSubject("svc", root);
  const relay = (
    options: {
      pollIntervalMs?: number;
      checkpointEveryMs?: number;
      wakeDelayMs?: number;
      logger?: ReturnType<typeof recordingLogger>;
    } = {},
  ) => {
    const r = createRelay({
      pool: file.env.pool,
      schema,
      nc: file.nc,
      subject,
      logger: quietLogger,
      lockRetryMs: 100,
      ...options,
    });
    file.started(r);
    return r;
  };
  const checkpoint = async () => {
    const client = await file.env.pool.connect();
    try {
      return await loadRelayCheckpoint(client, schema, "default");
    } finally {
      client.release();
    }
  };
  const messages = async (count: number): Promise<JsMsg[]> => {
    const consumer = await jetstream(file.nc).consumers.get(stream);
    const got: JsMsg[] = [];
    const iter = await consumer.fetch({ max_messages: count, expires: 5000 });
    for await (const msg of iter) got.push(msg);
    return got;
  };
  const messageCount = async () =>
    (await (await jetstreamManager(file.nc)).streams.info(stream)).state.messages;
  return { schema, root, stream, store, relay, checkpoint, messages, messageCount };
}

const created = (n: number) => ({ type: "TagCreated", data: { n }, metadata: { actor: "user:1" } });

describe("createRelay", () => {
  it("publishes a large event's data as this process appended it while it leads (what the bus carries of it, when its producer said), else as Postgres writes it", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const logger = recordingLogger();
    const relay = t.relay({ logger });
    await relay.start();
    await eventually("the relay to lead", async () =>
      logger.lines.some((l) => l.msg === "relay is active") ? true : undefined,
    );
    const pad = "x".repeat(HELD_MIN_BYTES);
    // Keys in the order given: Postgres writes a jsonb's shorter keys first, with spaces.
    const large = (n: number, bus?: string) => {
      const text = `{"pad":"${pad}","n":${n}}`;
      return { type: "TagCreated", data: withJsonText({ pad, n }, [text], text.length, bus) };
    };
    const append = (version: number, event: ReturnType<typeof large>, held: boolean) =>
      t.store.transaction(async (tx) => {
        const [stored] = await tx.append("tag-1", version, [event]);
        // As if another replica had appended it: nothing held for it here.
        if (!held) releaseAppended(stored!.eventId);
      });
    await append(0, large(1), true);
    await append(1, large(2), false);
    await append(2, large(3, `{"n":3}`), true);
    await append(3, large(4, `{"n":4}`), false);
    relay.wake();
    const msgs = await t.messages(4);
    const texts = msgs.map((m) => new TextDecoder().decode(m.data));
    expect(texts[0]).toMatch(new RegExp(`,"data":\\{"pad":"x{${HELD_MIN_BYTES}}","n":1\\}\\}$`));
    expect(texts[1]).toMatch(new RegExp(`,"data":\\{"n": 2, "pad": "x{${HELD_MIN_BYTES}}"\\}\\}$`));
    expect(texts[2]).toMatch(/,"data":\{"n":3\}\}$/);
    expect(msgs.map((m) => decodeEvent(m.data).data)).toEqual([
      { pad, n: 1 },
      { pad, n: 2 },
      { n: 3 },
      { pad, n: 4 },
    ]);
    // Only the held cut says it is one: read back, the data goes whole.
    expect(msgs.map((m) => decodeEventLazily(m.data).dataText?.cut)).toEqual([
      false,
      false,
      true,
      false,
    ]);
    expect([...heldAppended().keys()]).toEqual([]);
  });

  it("publishes each event to its subject with the event id as msgID, then advances the checkpoint", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const stored = await t.store.transaction(async (tx) => [
      ...(await tx.append("tag-1", 0, [created(1), created(2)])),
      ...(await tx.append("space-9", 0, [{ type: "SpaceCreated", data: {} }])),
    ]);
    await t.relay().start();
    const msgs = await t.messages(3);
    expect(msgs.map((m) => m.subject)).toEqual([
      `${t.root}.svc.tag.TagCreated`,
      `${t.root}.svc.tag.TagCreated`,
      `${t.root}.svc.space.SpaceCreated`,
    ]);
    expect(msgs.map((m) => m.headers?.get("Nats-Msg-Id"))).toEqual(stored.map((e) => e.eventId));
    const body = msgs[0]!.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      eventId: stored[0]!.eventId,
      streamId: "tag-1",
      streamVersion: 1,
      type: "TagCreated",
      data: { n: 1 },
    });
    const last = stored.at(-1)!;
    await eventually("checkpoint", async () => {
      const cp = await t.checkpoint();
      return cp.globalPosition === last.globalPosition ? cp : undefined;
    });
    expect(await t.checkpoint()).toEqual({
      transactionId: last.transactionId,
      globalPosition: last.globalPosition,
    });
  });

  it("keeps the checkpoint until JetStream acknowledges, and catches up once it does", async () => {
    const t = await setup();
    await t.store.transaction((tx) => tx.append("tag-1", 0, [created(1), created(2)]));
    const logger = recordingLogger();
    // No stream captures these subjects yet: every publish fails.
    await t.relay({ logger }).start();
    await eventually("a failed publish", async () =>
      logger.lines.some((l) => l.msg === "relay failed; retrying") ? true : undefined,
    );
    expect(await t.checkpoint()).toEqual({ transactionId: 0n, globalPosition: 0n });
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const msgs = await t.messages(2);
    expect(msgs.map((m) => m.json<{ streamVersion: number }>().streamVersion)).toEqual([1, 2]);
    await eventually("checkpoint", async () =>
      (await t.checkpoint()).globalPosition > 0n ? true : undefined,
    );
  });

  it("lets one relay per schema publish, and a standby take over from the checkpoint", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const first = recordingLogger();
    const second = recordingLogger();
    const a = t.relay({ logger: first });
    const b = t.relay({ logger: second });
    await a.start();
    await eventually("a active", async () =>
      first.lines.some((l) => l.msg === "relay is active") ? true : undefined,
    );
    await b.start();
    await t.store.transaction((tx) => tx.append("tag-1", 0, [created(1)]));
    await eventually("published", async () =>
      (await t.checkpoint()).globalPosition > 0n ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.lines.filter((l) => l.msg === "relay is active")).toEqual([]);

    await a.stop();
    await t.store.transaction((tx) => tx.append("tag-1", 1, [created(2)]));
    await eventually("b active", async () =>
      second.lines.some((l) => l.msg === "relay is active") ? true : undefined,
    );
    const msgs = await t.messages(2);
    expect(msgs.map((m) => m.json<{ streamVersion: number }>().streamVersion)).toEqual([1, 2]);
    expect(await t.messageCount()).toBe(2);
  });

  it("keeps a standby polling for the lock at its own pace however many commits wake it", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    await t.relay().start();
    await eventually("a leader", async () => ((await t.checkpoint()) ? true : undefined));
    const standbyPool = new pg.Pool({ connectionString: file.env.url, max: 2 });
    let checkouts = 0;
    standbyPool.on("acquire", () => checkouts++);
    const standby = createRelay({
      pool: standbyPool,
      schema: t.schema,
      nc: file.nc,
      subject: defaultSubject("svc", t.root),
      logger: quietLogger,
      lockRetryMs: 200,
    });
    await standby.start();
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      standby.wake();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await standby.stop();
    await standbyPool.end();
    // One lock attempt per 200 ms, not one per wake.
    expect(checkouts).toBeLessThanOrEqual(7);
  });

  it("publishes at once when woken after a commit, without waiting for the poll", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const relay = t.relay({ pollIntervalMs: 60_000 });
    const store = createEventStore({
      pool: file.env.pool,
      schema: t.schema,
      onCommit: () => relay.wake(),
    });
    await relay.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const startedAt = Date.now();
    await store.transaction((tx) => tx.append("tag-1", 0, [created(1)]));
    await t.messages(1);
    expect(Date.now() - startedAt).toBeLessThan(2000);
  });

  it("reads wakeDelayMs after a wake, once for the wakes meanwhile, and not after it stops", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const relay = t.relay({ pollIntervalMs: 60_000, wakeDelayMs: 150 });
    await relay.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [first] = await t.store.transaction((tx) => tx.append("tag-1", 0, [created(1)]));
    const wokenAt = performance.now();
    relay.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A second wake inside the delay does not start it again.
    relay.wake();
    await t.messages(1);
    const after = performance.now() - wokenAt;
    expect(after).toBeGreaterThanOrEqual(149);
    expect(after).toBeLessThan(2000);
    // A wake still pending when the relay stops reads nothing more.
    await t.store.transaction((tx) => tx.append("tag-1", 1, [created(2)]));
    relay.wake();
    await relay.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await t.checkpoint()).toEqual({
      transactionId: first!.transactionId,
      globalPosition: first!.globalPosition,
    });
    expect(await t.messageCount()).toBe(1);
  });

  it("stores its progress at most every checkpointEveryMs while events keep coming, and when it stops", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    // Both committed before the relay starts, so it finds them in the one read it makes: a
    // commit's wake can come after a read that already saw its event (the commit answers the
    // committer after others can see it), and the read that wake makes finds nothing more to
    // publish, which stores the progress at once by design.
    const [first] = await t.store.transaction((tx) => tx.append("tag-1", 0, [created(1)]));
    const [second] = await t.store.transaction((tx) => tx.append("tag-1", 1, [created(2)]));
    const relay = t.relay({ pollIntervalMs: 60_000, checkpointEveryMs: 60_000 });
    await relay.start();
    expect((await t.messages(2)).map((m) => m.json<{ eventId: string }>().eventId)).toEqual([
      first!.eventId,
      second!.eventId,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await t.checkpoint()).toEqual({ transactionId: 0n, globalPosition: 0n });
    await relay.stop();
    expect(await t.checkpoint()).toEqual({
      transactionId: second!.transactionId,
      globalPosition: second!.globalPosition,
    });
  });

  it("stores its progress at once when a poll finds nothing more to publish", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const [event] = await t.store.transaction((tx) => tx.append("tag-1", 0, [created(1)]));
    await t.relay({ pollIntervalMs: 100, checkpointEveryMs: 60_000 }).start();
    await t.messages(1);
    await eventually("checkpoint", async () =>
      (await t.checkpoint()).globalPosition === event!.globalPosition ? true : undefined,
    );
  });

  it("publishes what it had not stored again after losing its connection, and the stream keeps each event once", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const logger = recordingLogger();
    const relay = t.relay({ pollIntervalMs: 60_000, checkpointEveryMs: 60_000, logger });
    const store = createEventStore({
      pool: file.env.pool,
      schema: t.schema,
      onCommit: () => relay.wake(),
    });
    // Committed before it starts, so that no wake finds them published and stores its progress
    // (as above).
    await t.store.transaction((tx) => tx.append("tag-1", 0, [created(1)]));
    await t.store.transaction((tx) => tx.append("tag-1", 1, [created(2)]));
    await relay.start();
    await t.messages(2);
    expect(await t.checkpoint()).toEqual({ transactionId: 0n, globalPosition: 0n });
    // The session the relay reads and leads with ends, as a database restart would end it.
    const { rows } = await file.env.pool.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE query LIKE '%pg_snapshot_xmin%' AND query LIKE $1 AND pid <> pg_backend_pid()`,
      [`%"${t.schema}".events%`],
    );
    expect(rows).toEqual([{ ended: true }]);
    relay.wake();
    await eventually("the relay to lead again", async () =>
      logger.lines.filter((l) => l.msg === "relay is active").length === 2 ? true : undefined,
    );
    // Its new session starts from the stored checkpoint: both events are published again, then
    // a third, which it reads only after them.
    const [third] = await store.transaction((tx) => tx.append("tag-1", 2, [created(3)]));
    const jsm = await jetstreamManager(file.nc);
    await eventually("the third event", async () =>
      (await jsm.streams.info(t.stream)).state.last_seq === 3 ? true : undefined,
    );
    await relay.stop();
    expect(await t.checkpoint()).toEqual({
      transactionId: third!.transactionId,
      globalPosition: third!.globalPosition,
    });
    expect(await t.messageCount()).toBe(3);
  });

  it("publishes a backlog in order (throughput)", async () => {
    const t = await setup();
    await ensureStream(file.nc, { name: t.stream, subjects: [`${t.root}.>`] });
    const count = 5000;
    for (let i = 0; i < count / 500; i++) {
      await t.store.transaction((tx) =>
        tx.append(
          `tag-${i}`,
          0,
          Array.from({ length: 500 }, (_, n) => created(n)),
        ),
      );
    }
    const startedAt = Date.now();
    await t.relay().start();
    await eventually(
      "backlog published",
      async () => ((await t.messageCount()) === count ? true : undefined),
      60_000,
    );
    const ms = Date.now() - startedAt;
    console.info(
      `[relay] published ${count} events in ${ms} ms (${Math.round((count / ms) * 1000)}/s)`,
    );
  });
});
