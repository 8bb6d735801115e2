import { describe, expect, it } from "vitest";
import { startedForFile, uniqueName } from "@argus/testkit";
import { postgresSpanStore } from "../src/storage/postgres.ts";
import { dayOfMs, partitionName } from "../src/storage/time.ts";
import { exportRaw, listSpans, newSpanId, newTraceId, projectIdOf } from "./spans.ts";
import { startTracingUnderTest } from "./tracingUnderTest.ts";

const DAY = 86_400_000;
const t = startedForFile(() => startTracingUnderTest({ ARGUS_SPAN_RETENTION_DAYS: "400" }));

const partitions = async () =>
  (
    await t.pool.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent where p.relname = 'spans' order by 1`,
    )
  ).rows.map((r) => r.name);

describe("retention", () => {
  it("accepts spans within the configured days and refuses older ones", async () => {
    const name = uniqueName("proj");
    const now = Date.now();
    const at = (ago: number) => ({
      traceId: newTraceId(),
      spanId: newSpanId(),
      startMs: now - ago,
    });
    const res = await exportRaw(t, name, [at(399 * DAY), at(401 * DAY), at(-3 * DAY)]);
    // 401 days ago is past retention; three days ahead is past tomorrow.
    expect(res.rejectedSpans).toBe(2n);
    const id = await projectIdOf(t, name);
    expect(
      await listSpans(t, id, { startTime: new Date(now - 402 * DAY).toISOString() }),
    ).toHaveLength(1);
  });

  it("dropDaysBefore drops whole old days, their spans with them, and keeps the rest", async () => {
    const name = uniqueName("proj");
    const now = Date.now();
    const oldDay = dayOfMs(now - 100 * DAY);
    const old = Array.from({ length: 3 }, (_, i) => ({
      traceId: newTraceId(),
      spanId: newSpanId(),
      name: `old${i}`,
      startMs: now - 100 * DAY + i,
      attributes: { age: "old" },
    }));
    const recent = Array.from({ length: 2 }, (_, i) => ({
      traceId: newTraceId(),
      spanId: newSpanId(),
      name: `recent${i}`,
      startMs: now - DAY + i,
      attributes: { age: "recent" },
    }));
    const ten = {
      traceId: newTraceId(),
      spanId: newSpanId(),
      name: "ten",
      startMs: now - 10 * DAY,
      attributes: { age: 10 },
    };
    expect((await exportRaw(t, name, [...old, ...recent, ten])).rejectedSpans).toBe(0n);
    const id = await projectIdOf(t, name);
    const startTime = new Date(now - 200 * DAY).toISOString();
    expect(await listSpans(t, id, { startTime })).toHaveLength(6);
    expect(await partitions()).toContain(partitionName(oldDay));
    // The attribute-key catalog's days of the project.
    const keyDays = async () =>
      (
        await t.pool.query<{ day: number }>(
          `select distinct (day - date '1970-01-01') as day from span_attribute_keys
            where project_id = $1 order by 1`,
          [id],
        )
      ).rows.map((r) => r.day);
    const recentDays = [...new Set([now - 10 * DAY, now - DAY, now - DAY + 1].map(dayOfMs))];
    expect(await keyDays()).toEqual([oldDay, ...recentDays]);

    // The service's own sweep, at start, kept them: they are within its 400 days.
    const store = postgresSpanStore(t.pool);
    const cut = dayOfMs(now) - 50;
    expect(await store.dropDaysBefore(cut)).toBeGreaterThanOrEqual(1);
    const left = await partitions();
    expect(left).not.toContain(partitionName(oldDay));
    expect(left.every((p) => p >= partitionName(cut))).toBe(true);
    expect(left).toContain(partitionName(dayOfMs(now - 10 * DAY)));
    expect((await listSpans(t, id, { startTime })).map((s) => s.name).sort()).toEqual([
      "recent0",
      "recent1",
      "ten",
    ]);
    const { rows } = await t.pool.query<{ n: string }>(
      "select count(*) as n from spans where project_id = $1 and start_time < $2",
      [id, new Date(cut * DAY).toISOString()],
    );
    expect(rows[0]!.n).toBe("0");
    // The dropped days' keys went with them (of every project); the kept days' stayed.
    expect(await keyDays()).toEqual(recentDays);
    const { rows: keys } = await t.pool.query<{ n: string }>(
      "select count(*) as n from span_attribute_keys where day < $1::date",
      [new Date(cut * DAY).toISOString().slice(0, 10)],
    );
    expect(keys[0]!.n).toBe("0");
    // Nothing more to drop.
    expect(await store.dropDaysBefore(cut)).toBe(0);
  });

  it("a day another replica dropped is made again when spans for it arrive", async () => {
    const name = uniqueName("proj");
    const startMs = Date.now() - 200 * DAY;
    const span = () => ({ traceId: newTraceId(), spanId: newSpanId(), startMs });
    // The service now takes that day's partition for ready...
    expect((await exportRaw(t, name, [span()])).rejectedSpans).toBe(0n);
    // ...and another process drops it (a replica with a shorter retention, mid-rollout).
    await postgresSpanStore(t.pool).dropDaysBefore(dayOfMs(startMs) + 1);
    expect(await partitions()).not.toContain(partitionName(dayOfMs(startMs)));
    expect((await exportRaw(t, name, [span()])).rejectedSpans).toBe(0n);
    expect(await partitions()).toContain(partitionName(dayOfMs(startMs)));
    const id = await projectIdOf(t, name);
    const window = { startTime: new Date(startMs - DAY).toISOString() };
    expect(await listSpans(t, id, window)).toHaveLength(1);
  });
});
