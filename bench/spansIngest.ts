import pg from "pg";
import { copyRowsInto, copyText } from "./copy.ts";
import { isoOfNanos } from "../services/tracing/src/storage/time.ts";
import { Api } from "./datasets.ts";
import type { OperationBenchmark } from "./operations.ts";
import { benchSpans, otlpBody, projectNamed, sendOtlp, type BenchSpan } from "./spans.ts";
import { withBenchStack } from "./stack.ts";

const SPANS = 100_000;
/** Spans per OTLP request (an exporter's batch); requests in flight at once. */
const PER_REQUEST = 5_000;
const IN_FLIGHT = 4;

/** The rows ingestion stores for these spans, as COPY text (attributes and events as jsonb). */
function copyRows(projectUuid: string, spans: readonly BenchSpan[]): string {
  return spans
    .map((s) =>
      [
        projectUuid,
        isoOfNanos(s.startNs),
        s.traceId,
        s.spanId,
        s.parentId || "\\N",
        s.name,
        s.kind,
        isoOfNanos(s.endNs),
        "UNSET",
        "",
        copyText(JSON.stringify(s.attributes)),
        "[]",
      ].join("\t"),
    )
    .join("\n")
    .concat("\n");
}

/**
 * Ingesting 100 000 OpenInference spans (issue "Spans and traces"): through the whole stack as
 * an exporter sends them — POST /v1/traces, 20 OTLP/protobuf requests of 5000 spans, 4 in
 * flight (the gateway authenticates and forwards the body, the tracing service decodes it,
 * creates nothing new, writes each request's spans with one set-based insert per 2000 and one
 * SpansReceived event) — versus the floor: ONE `COPY tracing.spans FROM STDIN` of the same
 * 100 000 rows on a pg connection. Fresh span ids every operation; bodies and COPY text are
 * built untimed.
 */
export async function spansIngestBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const project = `ingest-${Date.now()}`;
    // The project and today's partition exist before anything is measured.
    await sendOtlp(api, spaceId, otlpBody(project, benchSpans(TRACE_WARMUP)));
    const { uuid } = await projectNamed(api, spaceId, project);

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    onStop(() => pool.end());
    let bodies: Uint8Array[] = [];
    let rows = "";
    const pids = { gateway: stack.processes.gateway!.pid, tracing: stack.processes.tracing!.pid };
    const size = otlpBody(project, benchSpans(PER_REQUEST)).length;
    console.info(
      `spans-ingest-100k: ${SPANS / PER_REQUEST} requests of ${PER_REQUEST} spans (${size} bytes each), ${IN_FLIGHT} in flight`,
    );
    return {
      kind: "operations",
      name: `ingest ${SPANS} spans: POST /v1/traces (OTLP/protobuf, ${PER_REQUEST} a request, ${IN_FLIGHT} in flight) vs one COPY of the same rows`,
      // 100 000 more rows per operation.
      maxOpsPerSlice: 3,
      subject: {
        name: "OTLP",
        prepare() {
          const spans = benchSpans(SPANS);
          bodies = Array.from({ length: SPANS / PER_REQUEST }, (_, i) =>
            otlpBody(project, spans.slice(i * PER_REQUEST, (i + 1) * PER_REQUEST)),
          );
        },
        async run() {
          let next = 0;
          const worker = async () => {
            while (next < bodies.length) await sendOtlp(api, spaceId, bodies[next++]!);
          };
          await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
        },
        pids,
      },
      baseline: {
        name: "COPY",
        prepare() {
          rows = copyRows(uuid, benchSpans(SPANS));
        },
        run: () =>
          copyRowsInto(
            pool,
            `copy tracing.spans (project_id, start_time, trace_id, span_id, parent_id, name,
               kind, end_time, status_code, status_message, attributes, events) from stdin`,
            rows,
            SPANS,
          ),
        pids: {},
      },
      stop,
    };
  });
}

const TRACE_WARMUP = 5;
