import { notFound, type CallContext } from "@argus/platform";
import {
  ColumnKind,
  type Column,
  type ColumnBatch,
  type ExportMessage,
  type TextColumn,
} from "@argus/proto/dataset/v1/bulk";
import type { CountExportSpansResponse, ExportSpansRequest } from "@argus/proto/tracing/v1/tracing";
import { isUuid } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { loadProjectByName } from "../projects/projectAccess.ts";
import { invalid, isRfc3339 } from "../shared/tracingRules.ts";
import type { SpanPosition, SpanPredicate, SpanRow, Window } from "../storage/spanStore.ts";
import { predicate } from "./spanQueries.ts";

/**
 * The official SDK's span export (`spans.export_to_df`, over Flight GetFlightInfo + DoGet):
 * the spans of a project in a window as OpenInference columns, read from storage one page at
 * a time (the list's keyset walk), so no export is ever held whole on this side.
 */

/** Spans per page read (and at most per batch sent). */
const EXPORT_PAGE = 1000;
/**
 * Characters of values per batch, about: a batch ends after the row that reaches it, so a page
 * of large spans stays far below a gRPC message's limit (24 MiB) and the gateway's memory.
 */
const EXPORT_BATCH_CHARS = 1 << 20;

const { COLUMN_KIND_STRING, COLUMN_KIND_INTEGER, COLUMN_KIND_FLOAT } = ColumnKind;

/** A span field column: its name, the kinds of its values, and its value of a row as text. */
interface FieldColumn {
  name: string;
  kinds: number;
  value: (row: SpanRow) => string | null;
}

/** Nanoseconds since the epoch of the store's RFC 3339 text (always `….ffffffZ`, UTC). */
export function epochNanos(text: string): string {
  const seconds = Math.floor(Date.parse(`${text.slice(0, 19)}Z`) / 1000);
  const micros = text.slice(20, 26).padEnd(6, "0");
  return (BigInt(seconds) * 1_000_000_000n + BigInt(micros) * 1000n).toString();
}

/**
 * The span fields, named as OpenInference's flattened export names them. `time` is the
 * start, as the SDK sorts by it; times are integer nanoseconds, which the SDK turns into
 * timestamps.
 */
const FIELDS: readonly FieldColumn[] = [
  { name: "context.span_id", kinds: COLUMN_KIND_STRING, value: (r) => r.span_id },
  { name: "context.trace_id", kinds: COLUMN_KIND_STRING, value: (r) => r.trace_id },
  { name: "parent_id", kinds: COLUMN_KIND_STRING, value: (r) => r.parent_id },
  { name: "name", kinds: COLUMN_KIND_STRING, value: (r) => r.name },
  { name: "span_kind", kinds: COLUMN_KIND_STRING, value: (r) => r.kind },
  { name: "start_time", kinds: COLUMN_KIND_INTEGER, value: (r) => epochNanos(r.start_time) },
  { name: "end_time", kinds: COLUMN_KIND_INTEGER, value: (r) => epochNanos(r.end_time) },
  { name: "time", kinds: COLUMN_KIND_INTEGER, value: (r) => epochNanos(r.start_time) },
  {
    name: "latency_ms",
    kinds: COLUMN_KIND_FLOAT,
    value: (r) =>
      String(Number(BigInt(epochNanos(r.end_time)) - BigInt(epochNanos(r.start_time))) / 1e6),
  },
  { name: "status_code", kinds: COLUMN_KIND_STRING, value: (r) => r.status_code },
  { name: "status_message", kinds: COLUMN_KIND_STRING, value: (r) => r.status_message },
];

const ATTRIBUTES = "attributes";

/** Whether `projected` (empty: everything) asks for `column`: by its name or a dotted prefix. */
export function projects(projected: readonly string[], column: string): boolean {
  return (
    projected.length === 0 || projected.some((p) => column === p || column.startsWith(`${p}.`))
  );
}

/** An attribute's value as its column's text: a string as itself, anything else as JSON. */
const attributeText = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v);

/** Values → one column in Arrow Utf8 layout (the shape ExportMessage carries). */
export function textColumn(values: readonly (string | null)[]): TextColumn {
  const encoded = values.map((v) => (v === null ? null : Buffer.from(v, "utf8")));
  const n = encoded.length;
  const nulls = encoded.filter((v) => v === null).length;
  const offsets = new Int32Array(n + 1);
  const data = Buffer.allocUnsafe(encoded.reduce((sum, v) => sum + (v?.length ?? 0), 0));
  const validity = Buffer.alloc(nulls > 0 ? (n + 7) >> 3 : 0);
  let at = 0;
  encoded.forEach((v, i) => {
    if (v !== null) {
      v.copy(data, at);
      at += v.length;
      if (nulls > 0) validity[i >> 3]! |= 1 << (i & 7);
    }
    offsets[i + 1] = at;
  });
  return {
    offsets: Buffer.from(offsets.buffer, offsets.byteOffset, offsets.byteLength),
    data,
    validity,
    nullCount: nulls,
  };
}

/**
 * A page's rows (each its columns' values) as batches of at most `maxChars` characters of
 * values, about: a batch ends after the row that reaches the limit, so every batch has a row.
 */
export function* batchesOf(
  rows: readonly (string | null)[][],
  columns: number,
  maxChars: number,
): Generator<ColumnBatch> {
  let from = 0;
  let chars = 0;
  const cut = (to: number): ColumnBatch => ({
    rowCount: to - from,
    columns: Array.from({ length: columns }, (_, c) =>
      textColumn(rows.slice(from, to).map((r) => r[c]!)),
    ),
  });
  for (let i = 0; i < rows.length; i++) {
    for (const v of rows[i]!) chars += v?.length ?? 0;
    if (chars >= maxChars) {
      yield cut(i + 1);
      from = i + 1;
      chars = 0;
    }
  }
  if (from < rows.length) yield cut(rows.length);
}

interface Resolved {
  projectId: string;
  spaceId: string;
  window: Window;
  filter: SpanPredicate | undefined;
}

function windowOfExport(req: ExportSpansRequest): Window {
  for (const [field, value] of [
    ["start_time", req.startTime],
    ["end_time", req.endTime],
  ] as const)
    if (!isRfc3339(value)) throw invalid(`${field} must be an RFC 3339 date-time`);
  if (Date.parse(req.startTime) >= Date.parse(req.endTime))
    throw invalid("start_time must be before end_time");
  return { start: req.startTime, end: req.endTime, endExclusive: true };
}

/**
 * The SDK's `sampleRate` ("sampled server-side by trace id, so whole traces are kept together
 * and re-runs return the same sample"): a span is kept when the first 32 bits of the md5 of
 * its trace id fall under rate × 2³². Deterministic, so CountExportSpans and ExportSpans (two
 * calls, maybe on two replicas) pick the same spans, and a larger rate's sample holds a
 * smaller one's; a hash rather than the id's own digits, since ids logged by hand need not be
 * random.
 */
function sampleOf(rate: number | undefined): SpanPredicate | undefined {
  if (rate === undefined) return undefined;
  if (!(rate > 0 && rate <= 1)) throw invalid("sample_rate must be above 0 and at most 1");
  if (rate === 1) return undefined;
  const under = Math.floor(rate * 2 ** 32);
  return (alias, firstParam) => ({
    sql: `('x' || left(md5(${alias}.trace_id), 8))::bit(32)::bigint < $${firstParam}`,
    params: [under],
  });
}

/** Both predicates (either may be absent), their parameters numbered in turn. */
function bothOf(
  a: SpanPredicate | undefined,
  b: SpanPredicate | undefined,
): SpanPredicate | undefined {
  if (!a || !b) return a ?? b;
  return (alias, firstParam) => {
    const x = a(alias, firstParam);
    const y = b(alias, firstParam + x.params.length);
    return { sql: `(${x.sql}) and (${y.sql})`, params: [...x.params, ...y.params] };
  };
}

async function resolve(
  deps: TracingDeps,
  req: ExportSpansRequest,
  ctx: CallContext,
): Promise<Resolved> {
  const window = windowOfExport(req);
  const filter = bothOf(predicate(req.filter), sampleOf(req.sampleRate));
  // Only ids name spaces; anything else would reach identity's lookup as a malformed uuid.
  if (!isUuid(req.spaceId)) throw notFound("space");
  if (req.projectName.trim() === "") throw invalid("the project name is required");
  const project = await loadProjectByName(
    deps,
    ctx,
    req.spaceId,
    req.projectName,
    "PROJECT_SPAN_READ",
  );
  return { projectId: project.id, spaceId: project.spaceId, window, filter };
}

export function spanDownload(deps: TracingDeps) {
  return {
    async countExportSpans(
      req: ExportSpansRequest,
      ctx: CallContext,
    ): Promise<CountExportSpansResponse> {
      const r = await resolve(deps, req, ctx);
      const n = await deps.store.countSpans({
        projectId: r.projectId,
        window: r.window,
        ...(r.filter ? { filter: r.filter } : {}),
      });
      return { totalRecords: BigInt(n) };
    },

    async *exportSpans(req: ExportSpansRequest, ctx: CallContext): AsyncGenerator<ExportMessage> {
      const r = await resolve(deps, req, ctx);
      const q = {
        projectId: r.projectId,
        window: r.window,
        ...(r.filter ? { filter: r.filter } : {}),
      };
      // `time` whatever the projection: the SDK sorts every export by it.
      const fields = FIELDS.filter((f) => f.name === "time" || projects(req.columns, f.name));
      const keys = (await deps.store.attributeKeys(q)).filter((k) =>
        projects(req.columns, `${ATTRIBUTES}.${k.key}`),
      );
      const columns: Column[] = [
        ...fields.map((f) => ({ name: f.name, kinds: f.kinds })),
        ...keys.map((k) => ({ name: `${ATTRIBUTES}.${k.key}`, kinds: k.kinds })),
      ];
      yield { part: { $case: "header", value: { spaceId: r.spaceId, versionId: "", columns } } };
      let after: SpanPosition | undefined;
      for (;;) {
        const rows = await deps.store.listSpans({
          ...q,
          limit: EXPORT_PAGE,
          ...(after ? { after } : {}),
        });
        if (rows.length === 0) return;
        const values = rows.map((row) => [
          ...fields.map((f) => f.value(row)),
          ...keys.map((k) => attributeText(row.attributes[k.key])),
        ]);
        for (const batch of batchesOf(values, columns.length, EXPORT_BATCH_CHARS))
          yield { part: { $case: "batch", value: batch } };
        if (rows.length < EXPORT_PAGE) return;
        const last = rows[rows.length - 1]!;
        after = { startTime: last.start_time, traceId: last.trace_id, spanId: last.span_id };
      }
    },
  };
}
