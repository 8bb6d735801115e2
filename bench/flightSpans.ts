import { Float64, Table, Utf8, vectorFromArray } from "apache-arrow";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { varintBytes } from "@argus/platform/wire";
import { WriteSpanEvaluationResponse } from "@argus/proto/public/flight";
import { encodeFlightData } from "../services/gateway/src/flight/flightData.ts";
import { recordBatchFrame, schemaFrame } from "../services/gateway/src/flight/ipc.ts";
import { postgresSpanStore } from "../services/tracing/src/storage/postgres.ts";
import { dayOfMs } from "../services/tracing/src/storage/time.ts";
import { Api } from "./datasets.ts";
import { flightClient, mib, rss } from "./flight.ts";
import type { OperationBenchmark } from "./operations.ts";
import { benchSpans, otlpBody, projectNamed, sendOtlp } from "./spans.ts";
import { withBenchStack, type BenchStack } from "./stack.ts";

const HOUR = 3_600_000;

/** The attributes every seeded span carries, as benchSpans' OpenInference spans do. */
const ATTRIBUTE_KEYS = [
  "input.value",
  "llm.model_name",
  "llm.token_count.completion",
  "llm.token_count.prompt",
  "openinference.span.kind",
  "output.value",
  "session.id",
  "user.id",
] as const;

/**
 * `n` spans of one project evenly between `fromMs` and `toMs`, in traces of 5 (a CHAIN root
 * and 4 LLM children), seeded by ONE set-based insert in the shape ingestion writes (the same
 * 8 attributes as bench/spans.ts's, ~450 bytes a span), and their keys in the attribute-key
 * catalog as ingestion keeps it; span ids are `lpad(to_hex(i), 16)`.
 */
async function seedSpans(
  pool: pg.Pool,
  projectId: string,
  n: number,
  fromMs: number,
  toMs: number,
) {
  await postgresSpanStore(pool).prepare(
    Array.from({ length: dayOfMs(toMs) - dayOfMs(fromMs) + 1 }, (_, i) => dayOfMs(fromMs) + i),
  );
  const res = await pool.query(
    `insert into tracing.spans (project_id, start_time, trace_id, span_id, parent_id, name, kind,
                                end_time, status_code, status_message, attributes, events)
     select $1::uuid, t, lpad(to_hex(i / 5), 32, '0'), lpad(to_hex(i), 16, '0'),
            case when i % 5 = 0 then null else lpad(to_hex(i - i % 5), 16, '0') end,
            case when i % 5 = 0 then 'agent.run' else 'llm.call ' || (i % 5) end,
            k, t + interval '250 milliseconds', 'UNSET', '',
            jsonb_build_object(
              'openinference.span.kind', k,
              'input.value', 'What is the refund policy for order ' || i || '? Please answer in two sentences.',
              'output.value', 'Orders can be refunded within 30 days of delivery (order ' || i || '). Shipping is not refunded.',
              'llm.model_name', 'gpt-4o-mini',
              'llm.token_count.prompt', 120 + i % 50,
              'llm.token_count.completion', 40 + i % 20,
              'session.id', 'session-' || (i % 1000),
              'user.id', 'user-' || (i % 97)),
            '[]'::jsonb
       from generate_series(1, $2::int) as i,
            lateral (select to_timestamp(($3::double precision + i * $4::double precision) / 1000) as t,
                            case when i % 5 = 0 then 'CHAIN' else 'LLM' end as k) x`,
    [projectId, n, fromMs, (toMs - fromMs) / (n + 1)],
  );
  if (res.rowCount !== n) throw new Error(`seeded ${res.rowCount} spans, not ${n}`);
  // Their attribute keys, as ingestion records them with the spans (one upsert a batch).
  await pool.query(
    `insert into tracing.span_attribute_keys (project_id, day, key, kinds)
     select s.project_id, (s.start_time at time zone 'UTC')::date, k.key,
            bit_or(tracing.span_value_kind(k.value))
       from tracing.spans s cross join lateral jsonb_each(s.attributes) k
      where s.project_id = $1
      group by 1, 2, 3 order by 1, 2, 3
     on conflict (project_id, day, key) do update
       set kinds = span_attribute_keys.kinds | excluded.kinds`,
    [projectId],
  );
  await pool.query("vacuum analyze tracing.spans");
  await pool.query("checkpoint");
}

/** The id seedSpans gives its i-th span. */
const seededSpanId = (i: number) => i.toString(16).padStart(16, "0");

/** A project made through OTLP (5 spans a day before `agoMs`), its public id and uuid. */
async function benchProject(api: Api, spaceId: string, prefix: string) {
  const name = `${prefix}-${Date.now()}`;
  await sendOtlp(api, spaceId, otlpBody(name, benchSpans(5, 24 * HOUR)));
  return { name, ...(await projectNamed(api, spaceId, name)) };
}

/** A pool on the stack's database as its superuser, in the tracing schema (as SpanStore expects). */
function superPool(b: BenchStack): pg.Pool {
  const url = new URL(b.databaseUrl);
  url.searchParams.set("options", "-c search_path=tracing");
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  b.onStop(() => pool.end());
  return pool;
}

/**
 * The peak resident-memory growth of every Argus process while `sampling` is on, sampled
 * from /proc every 50 ms; logged when the benchmark stops.
 */
function rssSampler(b: BenchStack, label: string) {
  const pids = Object.fromEntries(
    Object.entries(b.stack.processes).map(([name, p]) => [name, p.pid]),
  );
  const before = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, rss(pid)]));
  const peaks = { ...before };
  let timer: NodeJS.Timeout | undefined;
  b.onStop(async () => {
    clearInterval(timer);
    const growth = Object.entries(pids)
      .map(([n]) => [n, peaks[n]! - before[n]!] as const)
      .sort((x, y) => y[1] - x[1]);
    console.info(
      `${label}: resident memory growth of each Argus process during the subject (peak − before): ${growth
        .map(([n, g]) => `${n} ${mib(g)} (of ${mib(before[n]!)})`)
        .join(
          ", ",
        )}; goal < 256 MiB each: ${growth.every(([, g]) => g < 256 * 1024 * 1024) ? "met" : "NOT met"}`,
    );
  });
  return {
    pids,
    start() {
      timer ??= setInterval(() => {
        for (const [n, pid] of Object.entries(pids)) {
          try {
            peaks[n] = Math.max(peaks[n]!, rss(pid));
          } catch {
            // A process that exited is stack.stop's business, not a sample's.
          }
        }
      }, 50);
    },
  };
}

/** `BENCH_EXPORT_SPANS` makes it smaller, for trying a change; recorded numbers use the default. */
const EXPORT_SPANS = Number(process.env.BENCH_EXPORT_SPANS ?? 1_000_000);

/**
 * A project of EXPORT_SPANS spans in a 6-hour window (seedSpans), and the baseline both export
 * benchmarks compare with: ONE `COPY (select … the export's columns …) TO STDOUT` of the same
 * spans in the same order, read to its end by this process, which must count EXPORT_SPANS rows.
 */
async function exportSetup(b: BenchStack, label: string) {
  const api = new Api(b.stack);
  const spaceId = await api.defaultSpaceId();
  const project = await benchProject(api, spaceId, "export");
  const pool = superPool(b);
  const now = Date.now();
  const window = { start: now - 6 * HOUR, end: now };
  const seeded = performance.now();
  await seedSpans(pool, project.uuid, EXPORT_SPANS, window.start, window.end);
  console.info(
    `${label}: seeded ${EXPORT_SPANS} spans in ${Math.round(performance.now() - seeded)} ms`,
  );
  // The export's columns: the span fields, then one per attribute key.
  const copySql = `copy (select s.span_id, s.trace_id, s.parent_id, s.name, s.kind, s.start_time,
                                s.end_time, s.start_time as time, s.end_time - s.start_time as latency,
                                s.status_code, s.status_message,
                                ${ATTRIBUTE_KEYS.map((k) => `s.attributes ->> '${k}'`).join(", ")}
                           from tracing.spans s
                          where s.project_id = '${project.uuid}'
                            and s.start_time >= '${new Date(window.start).toISOString()}'
                            and s.start_time < '${new Date(window.end).toISOString()}'
                          order by s.start_time desc, s.trace_id desc, s.span_id desc) to stdout`;
  const copy = {
    name: "COPY",
    async run() {
      const client = await pool.connect();
      try {
        const stream = client.query(copyTo(copySql));
        let lines = 0;
        for await (const chunk of stream as AsyncIterable<Buffer>)
          for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
        if (lines !== EXPORT_SPANS) throw new Error(`COPY read ${lines} rows`);
      } finally {
        client.release();
      }
    },
    pids: {},
  };
  return { spaceId, project, pool, window, copy };
}

/**
 * The official SDK's span export (spans.export_to_df: GetFlightInfo with a
 * RecordQueryDescriptor, then DoGet of its ticket, the Arrow stream decoded into record
 * batches) of the 1 000 000 spans of one project in a 6-hour window, versus the COPY of
 * exportSetup. Both count their rows, which must be 1 000 000 (and FlightInfo's total_records
 * too). The peak growth of every Argus process's resident memory during the exports is
 * reported when the benchmark stops.
 */
export async function spansExportBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async (b) => {
    const { spaceId, project, window, copy } = await exportSetup(b, "spans-export-1m");
    const flight = flightClient(b.stack.flightAddress, b.stack.apiKey);
    b.onStop(async () => flight.client.close());
    const descriptor = JSON.stringify({
      spaceId,
      modelId: project.name,
      environment: "TRACING",
      startTime: new Date(window.start).toISOString(),
      endTime: new Date(window.end).toISOString(),
    });
    const memory = rssSampler(b, "spans-export-1m");
    return {
      kind: "operations",
      name: `span export of ${EXPORT_SPANS} spans (GetFlightInfo + DoGet, Arrow decoded) vs COPY (select … the same columns …) TO STDOUT`,
      maxOpsPerSlice: 1,
      subject: {
        name: "Flight",
        prepare: () => memory.start(),
        async run() {
          const info = await flight.info(descriptor);
          if (info.totalRecords !== BigInt(EXPORT_SPANS))
            throw new Error(`GetFlightInfo counted ${info.totalRecords} spans`);
          const ticket = info.endpoint[0]?.ticket?.ticket;
          if (!ticket) throw new Error("GetFlightInfo gave no ticket");
          const { rows, columns } = await flight.getArrow(ticket);
          if (rows !== EXPORT_SPANS) throw new Error(`DoGet read ${rows} rows`);
          // 11 span fields and the 8 attributes.
          if (columns !== 11 + ATTRIBUTE_KEYS.length)
            throw new Error(`DoGet sent ${columns} columns`);
        },
        pids: memory.pids,
      },
      baseline: copy,
      stop: b.stop,
    };
  });
}

/**
 * The floor under the export, in Postgres alone: its Arrow schema comes before any row, so the
 * attribute columns it names (each key of the window's days, typed by the JSON values it holds
 * there) are read first, from the catalog ingestion keeps (SpanStore.attributeKeys), then the
 * rows. Subject: that key query as the service runs it, then the same COPY; baseline: the COPY
 * alone.
 */
export async function spansExportFloorBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async (b) => {
    const { project, pool, window, copy } = await exportSetup(b, "spans-export-floor");
    const store = postgresSpanStore(pool);
    const q = {
      projectId: project.uuid,
      window: {
        start: new Date(window.start).toISOString(),
        end: new Date(window.end).toISOString(),
        endExclusive: true,
      },
    };
    return {
      kind: "operations",
      name: `the attribute keys of ${EXPORT_SPANS} spans, then COPY … TO STDOUT of them vs the COPY alone`,
      maxOpsPerSlice: 1,
      subject: {
        name: "keys+COPY",
        async run() {
          const keys = await store.attributeKeys(q);
          if (keys.length !== ATTRIBUTE_KEYS.length) throw new Error(`${keys.length} keys`);
          await copy.run();
        },
        pids: {},
      },
      baseline: copy,
      stop: b.stop,
    };
  });
}

const EVALUATED_SPANS = 100_000;
const EVAL_BATCH_ROWS = 10_000;
const EVAL_NAME = "correctness";

/**
 * The official SDK's spans.update_evaluations of 100 000 spans (one evaluation name: label,
 * score and explanation) through Flight DoPut writeSpanEvaluationRequest, until REST reads the
 * new values, versus ONE set-based `UPDATE … FROM unnest(…)` of the same rows in a table of
 * span_evaluations' shape (its columns, key and indexes) holding the 100 000 rows. The values
 * change with every operation on either side, so each write changes every row. The spans are
 * seeded in SQL (seedSpans), the client sends ready-made FlightData (prepared untimed), in
 * batches of 10 000 rows.
 */
export async function spansUpdateEvaluationsBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async (b) => {
    const { stack, onStop, stop } = b;
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const project = await benchProject(api, spaceId, "evals");
    const pool = superPool(b);
    const now = Date.now();
    await seedSpans(pool, project.uuid, EVALUATED_SPANS, now - HOUR, now);
    await pool.query(`create schema bench;
      create table bench.span_evaluations (like tracing.span_evaluations including all)`);
    const spanIds = Array.from({ length: EVALUATED_SPANS }, (_, i) => seededSpanId(i + 1));
    await pool.query(
      `insert into bench.span_evaluations (project_id, span_id, name, label, updated_at)
       select $1, x, $3, 'seed', now() from unnest($2::text[]) as x`,
      [project.uuid, spanIds, EVAL_NAME],
    );
    await pool.query("vacuum analyze bench.span_evaluations");
    const flight = flightClient(stack.flightAddress, stack.apiKey);
    onStop(async () => flight.client.close());

    let op = 0;
    let values = { labels: [] as string[], scores: [] as number[], explanations: [] as string[] };
    const next = () => {
      op++;
      values = {
        labels: spanIds.map((_, i) => `label ${op}.${i % 7}`),
        scores: spanIds.map((_, i) => ((op + i) % 100) / 100),
        // ~22 characters: 100 000 rows stay within a call's 16 MiB of values as the gateway
        // bounds them (3 bytes a character).
        explanations: spanIds.map((_, i) => `run ${op % 10}: cites policy ${i % 97}`),
      };
    };
    const descriptorMessage = (schemaBytes: Buffer) => {
      const cmd = JSON.stringify({
        writeSpanEvaluationRequest: { spaceId, externalModelId: project.name },
      });
      const descriptor = Buffer.concat([
        Buffer.from([0x08, 0x02, 0x12]),
        varintBytes(Buffer.byteLength(cmd)),
        Buffer.from(cmd),
      ]);
      return Buffer.concat([
        Buffer.from([0x0a]),
        varintBytes(descriptor.length),
        descriptor,
        schemaBytes,
      ]);
    };
    let messages: Buffer[] = [];
    const inRest = async (expected: number[]) => {
      const ids = expected.map((i) => spanIds[i]!);
      const { spans } = await api.call<{
        spans: { context: { span_id: string }; evaluations: { name: string; label?: string }[] }[];
      }>("POST", `/v2/spans?limit=${ids.length}`, 200, {
        project_id: project.id,
        start_time: new Date(now - 2 * HOUR).toISOString(),
        end_time: new Date(now + HOUR).toISOString(),
        filter: `context.span_id IN (${ids.map((id) => `'${id}'`).join(", ")})`,
      });
      for (const i of expected) {
        const span = spans.find((s) => s.context.span_id === spanIds[i]);
        const label = span?.evaluations.find((e) => e.name === EVAL_NAME)?.label;
        if (label !== values.labels[i])
          throw new Error(
            `span ${spanIds[i]} reads ${label} through REST, not ${values.labels[i]}`,
          );
      }
    };
    return {
      kind: "operations",
      name: `spans.update_evaluations of ${EVALUATED_SPANS} spans (Flight DoPut writeSpanEvaluationRequest, until readable through REST) vs one UPDATE … FROM unnest(…) of the same rows`,
      maxOpsPerSlice: 3,
      subject: {
        name: "DoPut",
        prepare() {
          next();
          const table = new Table({
            "context.span_id": vectorFromArray(spanIds, new Utf8()),
            [`eval.${EVAL_NAME}.label`]: vectorFromArray(values.labels, new Utf8()),
            [`eval.${EVAL_NAME}.score`]: vectorFromArray(values.scores, new Float64()),
            [`eval.${EVAL_NAME}.explanation`]: vectorFromArray(values.explanations, new Utf8()),
          });
          messages = [descriptorMessage(encodeFlightData(schemaFrame(table.schema)))];
          for (let from = 0; from < EVALUATED_SPANS; from += EVAL_BATCH_ROWS)
            for (const batch of table.slice(from, from + EVAL_BATCH_ROWS).batches)
              messages.push(encodeFlightData(recordBatchFrame(batch)));
        },
        async run() {
          const answer = WriteSpanEvaluationResponse.decode(await flight.put(messages));
          if (answer.recordsUpdated !== BigInt(EVALUATED_SPANS) || answer.unmatchedIds.length > 0)
            throw new Error(
              `DoPut updated ${answer.recordsUpdated} spans, ${answer.unmatchedIds.length} unmatched`,
            );
          await inRest([0, EVALUATED_SPANS / 2, EVALUATED_SPANS - 1]);
        },
        pids: { gateway: stack.processes.gateway!.pid, tracing: stack.processes.tracing!.pid },
      },
      baseline: {
        name: "UPDATE",
        prepare: next,
        async run() {
          const res = await pool.query(
            `update bench.span_evaluations e
                set label = x.label, score = x.score, explanation = x.explanation, updated_at = now()
               from unnest($2::text[], $3::text[], $4::float8[], $5::text[])
                 as x(span_id, label, score, explanation)
              where e.project_id = $1 and e.span_id = x.span_id and e.name = '${EVAL_NAME}'`,
            [project.uuid, spanIds, values.labels, values.scores, values.explanations],
          );
          if (res.rowCount !== EVALUATED_SPANS)
            throw new Error(`UPDATE changed ${res.rowCount} rows`);
        },
        pids: {},
      },
      stop,
    };
  });
}
