import { fileURLToPath } from "node:url";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { uniqueName, type SpawnedProcess } from "@argus/testkit";
import { expect, it } from "vitest";
import { createEventStore, ensureStream } from "../src/index.ts";
import { ConcurrencyError } from "../src/errors.ts";
import { createSchema, eventually, schemaName, spawnFixture, fileEnv } from "./support.ts";

const TOTAL = 10_000;
const WRITERS = 16;
const STREAMS = 400;
const ROLLBACK_RATE = 0.1;

const fixture = fileURLToPath(new URL("./fixtures/relayProcess.ts", import.meta.url));
const relays: SpawnedProcess[] = [];
const file = fileEnv(WRITERS + 4);

class Rollback extends Error {}

it(
  "publishes every committed event exactly once, in stream order, through relay SIGKILLs",
  { timeout: 120_000 },
  async () => {
    const schema = schemaName("complete");
    const root = uniqueName("t");
    const streamName = uniqueName("COMPLETE");
    await createSchema(file.env.pool, schema);
    const nc = file.nc;
    await ensureStream(nc, { name: streamName, subjects: [`${root}.>`] });

    // The observer: an ordered consumer sees the stream's messages in stream order.
    const observed: { eventId: string; streamId: string; version: number }[] = [];
    const firstSeen = new Set<string>();
    let duplicateDeliveries = 0;
    const messages = await (await jetstream(nc).consumers.get(streamName)).consume();
    const observing = (async () => {
      for await (const msg of messages) {
        const { eventId, streamId, streamVersion } = msg.json<{
          eventId: string;
          streamId: string;
          streamVersion: number;
        }>();
        if (firstSeen.has(eventId)) duplicateDeliveries++;
        else {
          firstSeen.add(eventId);
          observed.push({ eventId, streamId, version: streamVersion });
        }
      }
    })();

    let relayCount = 0;
    const startRelay = async (): Promise<SpawnedProcess> => {
      const relay = await spawnFixture(file, `relay-${++relayCount}`, fixture, {
        DATABASE_URL: file.env.url,
        NATS_URL: file.env.natsUrl,
        SCHEMA: schema,
        SERVICE: "svc",
        SUBJECT_ROOT: root,
      });
      relays.push(relay);
      return relay;
    };

    const store = createEventStore({
      pool: file.env.pool,
      schema,
      retries: 10,
      retryBackoff: { baseMs: 2, maxMs: 50 },
    });
    const committed = new Set<string>();
    const rolledBack = new Set<string>();
    let transactions = 0;
    let rollbacks = 0;
    let conflictsGivenUp = 0;

    async function writer(quota: number): Promise<void> {
      while (quota > 0) {
        const size = Math.min(quota, 1 + Math.floor(Math.random() * 6));
        // Some transactions span two streams.
        const split = size > 1 && Math.random() < 0.3 ? Math.ceil(size / 2) : size;
        const parts = [
          { streamId: `item-${Math.floor(Math.random() * STREAMS)}`, count: split },
          { streamId: `item-${Math.floor(Math.random() * STREAMS)}`, count: size - split },
        ].filter((p) => p.count > 0);
        const rollback = Math.random() < ROLLBACK_RATE;
        let attemptIds: string[] = [];
        try {
          await store.transaction(async (tx) => {
            for (const id of attemptIds) rolledBack.add(id);
            attemptIds = [];
            for (const { streamId, count } of parts) {
              const events = Array.from({ length: count }, (_, n) => ({
                type: "ItemChanged",
                data: { n },
              }));
              // Half the writers name the version they read, half append after whatever is there.
              const expected =
                Math.random() < 0.5
                  ? "any"
                  : (
                      await tx.client.query<{ v: number }>(
                        `SELECT coalesce(max(stream_version), 0) AS v FROM "${schema}".events WHERE stream_id = $1`,
                        [streamId],
                      )
                    ).rows[0]!.v;
              const stored = await tx.append(streamId, expected, events);
              attemptIds.push(...stored.map((e) => e.eventId));
            }
            if (rollback) throw new Rollback();
          });
          for (const id of attemptIds) committed.add(id);
          transactions++;
          quota -= size;
        } catch (err) {
          for (const id of attemptIds) rolledBack.add(id);
          if (err instanceof Rollback) rollbacks++;
          else if (err instanceof ConcurrencyError) conflictsGivenUp++;
          else throw err;
        }
      }
    }

    const startedAt = Date.now();
    await startRelay();
    // Kill the active relay three times mid-traffic; each time a standby has been waiting.
    const orchestrating = (async () => {
      for (const share of [0.25, 0.5, 0.75]) {
        await eventually(
          `${share * 100}% committed`,
          async () => (committed.size >= TOTAL * share ? true : undefined),
          60_000,
        );
        const active = relays.at(-1)!;
        await startRelay();
        await active.stop("SIGKILL");
      }
    })();
    await Promise.all(Array.from({ length: WRITERS }, () => writer(TOTAL / WRITERS)));
    const writtenAt = Date.now();
    await orchestrating;

    await eventually(
      "every committed event observed",
      async () => (observed.length >= committed.size ? true : undefined),
      60_000,
    ).catch(async (err: Error) => {
      const missing = [...committed].filter((id) => !firstSeen.has(id)).slice(0, 10);
      const { rows } = await file.env.pool.query(
        `SELECT event_id, transaction_id::text, global_position::text FROM "${schema}".events WHERE event_id = ANY($1::uuid[])`,
        [missing],
      );
      throw new Error(
        `${err.message}: ${observed.length} of ${committed.size}; missing ${JSON.stringify(rows)}\n` +
          relays.map((r) => r.output()).join("\n"),
      );
    });
    const observedAt = Date.now();
    // Give stragglers (duplicates, rolled-back ids) a moment to show up if they exist.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await relays.at(-1)!.stop("SIGTERM");
    await messages.close();
    await observing;

    const streamInfo = await (await jetstreamManager(nc)).streams.info(streamName);
    console.info(
      `[completeness] ${committed.size} committed in ${transactions} transactions, ${rollbacks} rolled back ` +
        `(${rolledBack.size} event ids), ${conflictsGivenUp} gave up on conflicts; writes ${writtenAt - startedAt} ms, ` +
        `all observed after ${observedAt - startedAt} ms; ${relayCount} relay processes, 3 SIGKILLed; ` +
        `stream holds ${streamInfo.state.messages} messages; ${duplicateDeliveries} duplicate deliveries`,
    );

    expect(committed.size).toBe(TOTAL);
    expect(rolledBack.size).toBeGreaterThan(0);
    // Every committed event exactly once, and nothing else.
    expect(observed).toHaveLength(TOTAL);
    expect(new Set(observed.map((o) => o.eventId))).toEqual(committed);
    expect(observed.filter((o) => rolledBack.has(o.eventId))).toEqual([]);
    // The server dropped every re-publish by msgID.
    expect(streamInfo.state.messages).toBe(TOTAL);
    expect(duplicateDeliveries).toBe(0);
    // Per stream, versions arrive as 1, 2, 3, ... with no gap and no inversion.
    const lastVersion = new Map<string, number>();
    const outOfOrder = observed.filter((o) => {
      const expected = (lastVersion.get(o.streamId) ?? 0) + 1;
      lastVersion.set(o.streamId, o.version);
      return o.version !== expected;
    });
    expect(outOfOrder).toEqual([]);
  },
);
