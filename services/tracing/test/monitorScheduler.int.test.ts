import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "@argus/service-host";
import { createLogger, fixedClock } from "@argus/platform";
import { MonitorServiceService as M, type MonitorFields } from "@argus/proto/tracing/v1/monitors";
import { latencyMonitor } from "./monitorFields.ts";
import { startedForFile, uniqueName } from "@argus/testkit";
import { startTracing } from "../src/index.ts";
import { exportRaw, newSpanId, newTraceId, projectIdOf } from "./spans.ts";
import { startTracingUnderTest } from "./tracingUnderTest.ts";

// A fixed time: the schedule, the windows and the leases all read this clock, moved by hand.
const pinned = new Date("2026-03-04T10:00:00.000Z");
const clock = fixedClock(pinned);
const CADENCE = 10;

const t = startedForFile(() =>
  startTracingUnderTest(
    {
      ARGUS_MONITOR_MIN_CADENCE_SECONDS: "1",
      ARGUS_MONITOR_POLL_MS: "50",
      ARGUS_MONITOR_LEASE_MS: "5000",
    },
    { clock },
  ),
);
let projectId: string;
const replicas: RunningService[] = [];

beforeAll(async () => {
  // Two more replicas of the same service on the same database: three evaluation loops.
  for (let i = 0; i < 2; i++)
    replicas.push(
      await startTracing(
        { ...t.env, TRACING_GRPC_PORT: "0" },
        createLogger({ service: `tracing-replica-${i}`, level: "warn" }),
        { clock },
      ),
    );
  const project = uniqueName("scheduled");
  // Slow spans in the minute before the pinned time.
  await exportRaw(
    t,
    project,
    Array.from({ length: 20 }, (_, i) => ({
      traceId: newTraceId(),
      spanId: newSpanId(),
      startMs: pinned.getTime() - 50_000 + i * 1000,
      durationMs: 900,
    })),
  );
  projectId = await projectIdOf(t, project);
}, 90_000);
afterAll(async () => {
  // Before the service itself (stopped by startTracingUnderTest, whose hook was registered first).
  for (const r of replicas) await r.stop();
});

const fields = (over: Partial<MonitorFields> = {}): MonitorFields =>
  latencyMonitor("scheduled", 500, {
    // A long window: the spans stay in it however far the clock is moved here.
    windowSeconds: 86_400,
    schedule: { enabled: true, cadenceSeconds: CADENCE, daysOfWeek: [] },
    ...over,
  });

const evaluationsOf = async (ids: string[]) =>
  (
    await t.pool.query<{ monitor_id: string; n: number; ends: number }>(
      `select monitor_id, count(*)::int as n, count(distinct window_end)::int as ends
         from monitor_evaluations where monitor_id = any($1::uuid[]) group by monitor_id`,
      [ids],
    )
  ).rows;
const changesOf = async (ids: string[]) =>
  (
    await t.pool.query<{ n: number }>(
      `select count(*)::int as n from events
        where stream_id = any($1::text[]) and event_type = 'MonitorStatusChanged'`,
      [ids.map((id) => `monitor-${id}`)],
    )
  ).rows[0]!.n;

/** Waits (real time) until every monitor has `n` evaluations, and no replica is mid-run. */
async function untilEvaluated(ids: string[], n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await evaluationsOf(ids);
    const leased = await t.pool.query(
      "select 1 from monitor_schedule where monitor_id = any($1::uuid[]) and lease_until is not null",
      [ids],
    );
    if (rows.length === ids.length && rows.every((r) => r.n >= n) && leased.rowCount === 0) return;
    if (Date.now() > deadline)
      throw new Error(`evaluations: ${JSON.stringify(rows)} (wanted ${n} each of ${ids.length})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the evaluation schedule, three replicas", () => {
  const ids: string[] = [];

  it("a new monitor is evaluated at once by one replica: one evaluation, one change", async () => {
    for (let i = 0; i < 30; i++)
      ids.push((await t.call(M.createMonitor, { projectId, fields: fields() })).id);
    await untilEvaluated(ids, 1);
    const rows = await evaluationsOf(ids);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(await changesOf(ids)).toBe(ids.length);
    const statuses = await t.pool.query(
      "select distinct status from monitors where id = any($1::uuid[])",
      [ids],
    );
    expect(statuses.rows).toEqual([{ status: "TRIGGERED" }]);
  });

  it("each cadence, each monitor once; the status changed once, whoever evaluated", async () => {
    for (let step = 1; step <= 3; step++) {
      clock.advance(CADENCE * 1000);
      await untilEvaluated(ids, step + 1);
    }
    const rows = await evaluationsOf(ids);
    // Four runs each, of four different windows: no run evaluated twice.
    expect(rows.map((r) => [r.n, r.ends])).toEqual(ids.map(() => [4, 4]));
    expect(await changesOf(ids)).toBe(ids.length);
  });

  it("after an outage of an hour, one catch-up evaluation each, not one per missed window", async () => {
    clock.advance(3_600_000);
    await untilEvaluated(ids, 5);
    // Let the loops run a while longer: nothing more is due.
    await new Promise((r) => setTimeout(r, 500));
    expect((await evaluationsOf(ids)).map((r) => r.n)).toEqual(ids.map(() => 5));
    const next = await t.pool.query<{ next_run_at: Date }>(
      "select distinct next_run_at from monitor_schedule where monitor_id = any($1::uuid[])",
      [ids],
    );
    expect(next.rows.every((r) => r.next_run_at > clock.now())).toBe(true);
  });

  it("a dead replica's claim is taken over once its lease has passed", async () => {
    const [id] = ids;
    // TEST SETUP: a claim as a replica that died mid-evaluation leaves it.
    await t.pool.query(
      "update monitor_schedule set next_run_at = $2, lease_until = $3 where monitor_id = $1",
      [id, clock.now(), new Date(clock.now().getTime() + 4000)],
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await evaluationsOf([id!]))[0]!.n).toBe(5);
    clock.advance(4000);
    await untilEvaluated([id!], 6);
  });

  it("in a downtime, scheduled runs are skipped: no evaluation, nothing changes", async () => {
    const m = await t.call(M.createMonitor, {
      projectId,
      fields: fields({
        downtime: { start: clock.now().toISOString(), durationSeconds: 600, frequencyDays: 0 },
      }),
    });
    // Due at once, and again each cadence: every run falls in the downtime.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      clock.advance(CADENCE * 1000);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(await evaluationsOf([m.id])).toEqual([]);
    expect((await t.call(M.getMonitor, { id: m.id })).status).toBe("NO_DATA");
    // The downtime over, the next run evaluates.
    clock.advance(600_000);
    await untilEvaluated([m.id], 1);
    expect((await t.call(M.getMonitor, { id: m.id })).status).toBe("TRIGGERED");
  });

  it("a manual monitor is never scheduled; evaluating it now works", async () => {
    const m = await t.call(M.createMonitor, {
      projectId,
      fields: fields({ manualEvaluationEnabled: true }),
    });
    const scheduled = await t.pool.query("select 1 from monitor_schedule where monitor_id = $1", [
      m.id,
    ]);
    expect(scheduled.rowCount).toBe(0);
    expect((await t.call(M.evaluateMonitor, { id: m.id })).status).toBe("TRIGGERED");
  });
});
