import { performance } from "node:perf_hooks";
import pg from "pg";
import { postgresSpanStore } from "../services/tracing/src/storage/postgres.ts";
import { dayOfMs } from "../services/tracing/src/storage/time.ts";
import type { Benchmark } from "./benchmark.ts";
import { Api } from "./datasets.ts";
import { benchSpans, otlpBody, projectNamed, sendOtlp } from "./spans.ts";
import { withBenchStack } from "./stack.ts";

const BIG = 10_000_000;
const SMALL = 10_000;
/** Both projects' spans spread evenly over these last days. */
const DAYS = 10;
const HOUR = 3_600_000;
const LIMIT = 50;

/**
 * Whether a span list costs what the window holds, not what the project holds (issue "Spans and
 * traces"): POST /v2/spans?limit=50 over a 1-hour window two days ago, in a project of
 * 10 000 000 spans versus one of 10 000, both spread evenly over the last 10 days (so the hour
 * holds ~41 700 spans of the big one, ~42 of the small one). Each project is created through
 * OTLP ingestion (one trace); the rest are seeded with one set-based insert each into
 * `tracing.spans` in the shape ingestion writes (day partitions made by the service's own
 * SpanStore), then `vacuum analyze` and a checkpoint.
 */
export async function spansListBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const names = { big: `list-big-${Date.now()}`, small: `list-small-${Date.now()}` };
    for (const name of Object.values(names))
      await sendOtlp(api, spaceId, otlpBody(name, benchSpans(5)));
    const big = await projectNamed(api, spaceId, names.big);
    const small = await projectNamed(api, spaceId, names.small);

    const url = new URL(databaseUrl);
    url.searchParams.set("options", "-c search_path=tracing");
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    onStop(() => pool.end());
    const now = Date.now();
    const first = now - DAYS * 24 * HOUR;
    await postgresSpanStore(pool).prepare(
      Array.from({ length: DAYS + 1 }, (_, i) => dayOfMs(first) + i),
    );
    const t0 = performance.now();
    await seed(pool, big.uuid, BIG, first, now);
    await seed(pool, small.uuid, SMALL, first, now);
    await pool.query("vacuum analyze tracing.spans");
    await pool.query("checkpoint");
    console.info(
      `spans-list-10m: seeded ${BIG + SMALL} spans in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );

    const windowStart = new Date(now - 48 * HOUR);
    const bodyOf = (projectId: string) =>
      JSON.stringify({
        project_id: projectId,
        start_time: windowStart.toISOString(),
        end_time: new Date(windowStart.getTime() + HOUR).toISOString(),
      });
    const target = (name: string, projectId: string) => ({
      name,
      url: `${stack.baseUrl}/v2/spans?limit=${LIMIT}`,
      headers: api.headers,
      body: bodyOf(projectId),
      pids: { gateway: stack.processes.gateway!.pid, tracing: stack.processes.tracing!.pid },
    });
    // Both pages are full: the window holds more than a page of each.
    for (const p of [big, small]) {
      const page = await api.call<{ spans: unknown[] }>(
        "POST",
        `/v2/spans?limit=${LIMIT}`,
        200,
        bodyOf(p.id),
      );
      if (page.spans.length !== (p === big ? LIMIT : Math.min(LIMIT, 41)))
        console.info(`spans-list-10m: a page of ${page.spans.length} spans for ${p.id}`);
    }
    return {
      name: `POST /v2/spans?limit=${LIMIT}, a 1-hour window: a project of ${BIG} spans vs one of ${SMALL}`,
      subject: target("10M", big.id),
      baseline: target("10k", small.id),
      stop,
    };
  });
}

/** `n` spans of one project evenly between `fromMs` and `toMs`, in traces of 5. */
async function seed(pool: pg.Pool, projectId: string, n: number, fromMs: number, toMs: number) {
  const res = await pool.query(
    `insert into tracing.spans (project_id, start_time, trace_id, span_id, parent_id, name, kind,
                                end_time, status_code, status_message, attributes, events)
     select $1::uuid, t, lpad(to_hex(i / 5), 32, '0'), lpad(to_hex(i), 16, '0'),
            case when i % 5 = 0 then null else lpad(to_hex(i - i % 5), 16, '0') end,
            case when i % 5 = 0 then 'agent.run' else 'llm.call' end,
            case when i % 5 = 0 then 'CHAIN' else 'LLM' end,
            t + interval '250 milliseconds', 'UNSET', '',
            jsonb_build_object('openinference.span.kind', case when i % 5 = 0 then 'CHAIN' else 'LLM' end,
                               'input.value', 'What is the refund policy for order ' || i || '?',
                               'output.value', 'Orders can be refunded within 30 days.',
                               'llm.model_name', 'gpt-4o-mini', 'session.id', 'session-' || (i % 1000)),
            '[]'::jsonb
       from generate_series(1, $2::int) as i,
            lateral (select to_timestamp(($3::double precision + i * $4::double precision) / 1000) as t) x`,
    [projectId, n, fromMs, (toMs - fromMs - HOUR) / n],
  );
  if (res.rowCount !== n) throw new Error(`seeded ${res.rowCount} spans, not ${n}`);
}
