import { performance } from "node:perf_hooks";
import pg from "pg";
import { postgresSpanStore } from "../services/tracing/src/storage/postgres.ts";
import { dayOfMs } from "../services/tracing/src/storage/time.ts";
import { cpuTimes } from "./cpuTime.ts";
import { Api } from "./datasets.ts";
import type { OperationBenchmark } from "./operations.ts";
import { benchSpans, otlpBody, projectNamed, sendOtlp } from "./spans.ts";
import { withBenchStack } from "./stack.ts";

const BIG = 10_000_000;
const DAYS = 10;
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** The tracing schema's tables as the benchmarks' own pool sees them. */
function tracingPool(databaseUrl: string): pg.Pool {
  const url = new URL(databaseUrl);
  url.searchParams.set("options", "-c search_path=tracing");
  return new pg.Pool({ connectionString: url.toString(), max: 2 });
}

/**
 * `n` spans of one project evenly between `fromMs` and `toMs`, in traces of 5, their latency
 * 1 to 1000 ms (a different one for most spans, so a percentile has something to sort).
 */
async function seed(pool: pg.Pool, projectId: string, n: number, fromMs: number, toMs: number) {
  const res = await pool.query(
    `insert into spans (project_id, start_time, trace_id, span_id, parent_id, name, kind,
                        end_time, status_code, status_message, attributes, events)
     select $1::uuid, t, lpad(to_hex(i / 5), 32, '0'), lpad(to_hex(i), 16, '0'),
            case when i % 5 = 0 then null else lpad(to_hex(i - i % 5), 16, '0') end,
            case when i % 5 = 0 then 'agent.run' else 'llm.call' end,
            case when i % 5 = 0 then 'CHAIN' else 'LLM' end,
            t + make_interval(secs => (1 + (i::bigint * 7919) % 1000) / 1000.0), 'OK', '',
            jsonb_build_object('openinference.span.kind', case when i % 5 = 0 then 'CHAIN' else 'LLM' end,
                               'llm.model_name', 'gpt-4o-mini',
                               'llm.token_count.total', 100 + i % 400),
            '[]'::jsonb
       from generate_series(1, $2::int) as i,
            lateral (select to_timestamp(($3::double precision + i * $4::double precision) / 1000) as t) x`,
    [projectId, n, fromMs, (toMs - fromMs) / n],
  );
  if (res.rowCount !== n) throw new Error(`seeded ${res.rowCount} spans, not ${n}`);
}

/**
 * Issue 30: ONE monitor evaluation (P95 of latency over a 1-hour window) on a project of
 * 10 000 000 spans versus the same aggregate written by hand. Subject: `POST
 * /v2/monitors/{id}/evaluate` through the API (gateway, gRPC, the monitor read, the metric's
 * read-only transaction, the decision on its stream, the latest value and the history row in
 * one transaction). Baseline: ONE `select percentile_cont(0.95) …` over the same spans of the
 * same hour, on a pg pool. The spans are spread evenly over the last 10 days (so the hour
 * holds ~41 700), seeded set-based into `tracing.spans` in the shape ingestion writes. Goal:
 * p50 ratio ≤ 1.5.
 */
export async function monitorEvaluationBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const name = `monitored-${Date.now()}`;
    await sendOtlp(api, spaceId, otlpBody(name, benchSpans(5)));
    const project = await projectNamed(api, spaceId, name);
    const pool = tracingPool(databaseUrl);
    onStop(() => pool.end());
    const now = Date.now();
    const first = now - DAYS * 24 * HOUR;
    // Up to an hour ahead: the evaluated hour stays full while the benchmark runs.
    await postgresSpanStore(pool).prepare(
      Array.from({ length: DAYS + 2 }, (_, i) => dayOfMs(first) + i),
    );
    const t0 = performance.now();
    await seed(pool, project.uuid, BIG, first, now + HOUR);
    await pool.query("vacuum analyze spans");
    await pool.query("checkpoint");
    console.info(
      `monitor-eval-10m: seeded ${BIG} spans in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    const monitor = await api.call<{ id: string }>("POST", "/v2/monitors", 201, {
      name: `p95-${Date.now()}`,
      type: "TRACING",
      project_id: project.id,
      metric: "P95",
      dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
      threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 5000 },
      evaluation_window_length_seconds: 3600,
      manual_evaluation_enabled: true,
    });
    const evaluate = () =>
      api.call<{ value?: number; status: string }>(
        "POST",
        `/v2/monitors/${monitor.id}/evaluate`,
        200,
      );
    const byHand = async () => {
      const end = new Date();
      const res = await pool.query<{ p95: number | null; n: string }>(
        `select percentile_cont(0.95) within group
                  (order by extract(epoch from (end_time - start_time)) * 1000) as p95,
                count(*) as n
           from spans
          where project_id = $1 and start_time >= $2 and start_time < $3`,
        [project.uuid, new Date(end.getTime() - HOUR), end],
      );
      return res.rows[0]!;
    };
    // The same number both ways, over the same ~41 700 spans, or the comparison means nothing.
    const [subject, baseline] = [await evaluate(), await byHand()];
    console.info(
      `monitor-eval-10m: P95 ${subject.value} (${subject.status}) vs ${baseline.p95} by hand over ${baseline.n} spans`,
    );
    if (subject.value === undefined || Math.abs(subject.value - baseline.p95!) > 5)
      throw new Error("the monitor's P95 is not the hand-written aggregate's");
    return {
      kind: "operations",
      name: `one evaluation of a monitor (P95 of latency, 1-hour window) on a project of ${BIG} spans vs the same aggregate by hand`,
      subject: {
        name: "evaluate",
        pids: { gateway: stack.processes.gateway!.pid, tracing: stack.processes.tracing!.pid },
        async run() {
          const e = await evaluate();
          if (e.value === undefined) throw new Error(`no value: ${JSON.stringify(e)}`);
        },
      },
      baseline: {
        name: "SQL",
        pids: {},
        async run() {
          if ((await byHand()).p95 === null) throw new Error("no value");
        },
      },
      stop,
    };
  });
}

/** A benchmark that reports what it measured over a run of its own, with its goals. */
export interface ReportBenchmark {
  kind: "report";
  name: string;
  run(): Promise<{ text: string; ok: boolean; numbers: Record<string, number> }>;
  stop(): Promise<void>;
}

const percentile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};

/**
 * Issue 30: 1 000 monitors on a 1-minute cadence on ONE tracing replica. Phase 1: 10 monitors
 * for `PHASE_MINUTES`; phase 2: 1 000 (the 10 and 990 more) for as long. Each monitor: P95 of
 * latency over its 1-minute window, on a project receiving ~20 spans a second (seeded ahead).
 * Measured from the evaluation history of each phase's last `PHASE_MINUTES - 1` minutes: the
 * lag of each scheduled evaluation (`evaluated_at - due_at`), and its cost — its own duration
 * (`duration_ms`: measure, judge, decide) and the tracing process's CPU per evaluation. Goals:
 * lag p99 ≤ 10 s with 1 000; the cost with 1 000 no greater than with 10.
 */
export async function monitorScaleBenchmark(): Promise<ReportBenchmark> {
  const PHASE_MINUTES = Number(process.env.BENCH_MONITOR_PHASE_MINUTES ?? 3);
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const name = `scale-${Date.now()}`;
    await sendOtlp(api, spaceId, otlpBody(name, benchSpans(5)));
    const project = await projectNamed(api, spaceId, name);
    const pool = tracingPool(databaseUrl);
    onStop(() => pool.end());
    const now = Date.now();
    const horizon = (2 * PHASE_MINUTES + 10) * MINUTE;
    await postgresSpanStore(pool).prepare([dayOfMs(now - HOUR), dayOfMs(now + horizon)]);
    // ~20 spans a second from an hour ago until after the run.
    await seed(
      pool,
      project.uuid,
      Math.round(((HOUR + horizon) / 1000) * 20),
      now - HOUR,
      now + horizon,
    );
    await pool.query("vacuum analyze spans");
    const create = (i: number) =>
      api.call("POST", "/v2/monitors", 201, {
        name: `scaled-${i}`,
        type: "TRACING",
        project_id: project.id,
        metric: "P95",
        dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
        threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 900 + (i % 100) },
        evaluation_window_length_seconds: 60,
        scheduled_runtime: { enabled: true, cadence_seconds: 60 },
      });
    const tracingPid = stack.processes.tracing!.pid;

    async function phase(monitors: number) {
      const started = new Date();
      const cpu0 = cpuTimes({ tracing: tracingPid }).tracing!;
      await new Promise((r) => setTimeout(r, PHASE_MINUTES * MINUTE));
      const cpu = cpuTimes({ tracing: tracingPid }).tracing! - cpu0;
      // The first minute of a phase holds its new monitors' first runs: left out of the lags.
      const from = new Date(started.getTime() + MINUTE);
      const rows = (
        await pool.query<{ lag_ms: number; duration_ms: number }>(
          `select extract(epoch from (evaluated_at - due_at)) * 1000 as lag_ms, duration_ms
             from monitor_evaluations where trigger = 'SCHEDULE' and due_at >= $1`,
          [from],
        )
      ).rows;
      const all = await pool.query<{ n: number }>(
        "select count(*)::int as n from monitor_evaluations where trigger = 'SCHEDULE' and evaluated_at >= $1",
        [started],
      );
      const lags = rows.map((r) => Number(r.lag_ms));
      const durations = rows.map((r) => Number(r.duration_ms));
      return {
        monitors,
        evaluations: rows.length,
        perMinute: rows.length / (PHASE_MINUTES - 1),
        lagP50: percentile(lags, 0.5),
        lagP99: percentile(lags, 0.99),
        durationP50: percentile(durations, 0.5),
        durationP99: percentile(durations, 0.99),
        cpuPerEvaluation: cpu / Math.max(1, all.rows[0]!.n),
      };
    }

    return {
      kind: "report",
      name: `1 000 monitors on a 1-minute cadence on one replica (phases of ${PHASE_MINUTES} min: 10, then 1 000)`,
      async run() {
        for (let i = 0; i < 10; i++) await create(i);
        const small = await phase(10);
        const t0 = performance.now();
        for (let i = 10; i < 1000; i++) await create(i);
        const created = (performance.now() - t0) / 1000;
        const large = await phase(1000);
        const row = (p: typeof small) =>
          `| ${String(p.monitors).padStart(5)} | ${p.evaluations.toString().padStart(6)} | ` +
          `${p.perMinute.toFixed(0).padStart(6)} | ${(p.lagP50 / 1000).toFixed(2).padStart(6)} | ` +
          `${(p.lagP99 / 1000).toFixed(2).padStart(6)} | ${p.durationP50.toFixed(1).padStart(7)} | ` +
          `${p.durationP99.toFixed(1).padStart(7)} | ${p.cpuPerEvaluation.toFixed(2).padStart(8)} |`;
        const costRatio = large.durationP50 / small.durationP50;
        const cpuRatio = large.cpuPerEvaluation / small.cpuPerEvaluation;
        const ok = large.lagP99 <= 10_000 && costRatio <= 1.5 && cpuRatio <= 1.5;
        const text = [
          `990 more monitors created through the API in ${created.toFixed(0)} s`,
          "| monitors | evals | per min | lag p50 s | lag p99 s | eval p50 ms | eval p99 ms | tracing CPU ms/eval |",
          "| -------: | ----: | ------: | --------: | --------: | ----------: | ----------: | ------------------: |",
          row(small),
          row(large),
          `lag p99 with 1 000: ${(large.lagP99 / 1000).toFixed(2)} s (goal ≤ 10 s); ` +
            `evaluation p50 1 000 / 10: ${costRatio.toFixed(2)}x, tracing CPU per evaluation ${cpuRatio.toFixed(2)}x (goal: not growing)`,
        ].join("\n");
        return {
          text,
          ok,
          numbers: {
            lagP99Ms: large.lagP99,
            lagP50Ms: large.lagP50,
            costRatio,
            cpuRatio,
            perMinute: large.perMinute,
          },
        };
      },
      stop,
    };
  });
}
