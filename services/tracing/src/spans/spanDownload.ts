import { notFound, type BatchLimits, type CallContext } from "@argus/platform";
import {
  ColumnKind,
  type Column,
  type ExportMessage,
  type TextColumn,
} from "@argus/proto/dataset/v1/bulk";
import type { CountExportSpansResponse, ExportSpansRequest } from "@argus/proto/tracing/v1/tracing";
import { isUuid } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { loadProjectByName } from "../projects/projectAccess.ts";
import { invalid, isRfc3339 } from "../shared/tracingRules.ts";
import type { ExportColumn, SpanPredicate, Window } from "../storage/spanStore.ts";
import { predicate } from "./spanQueries.ts";

/**
 * The official SDK's span export (`spans.export_to_df`, over Flight GetFlightInfo + DoGet):
 * the spans of a project in a window as OpenInference columns, read from storage by one
 * statement as the stream takes its batches (SpanStore.exportSpans), so no export is ever
 * held whole on this side, and no value becomes a string on its way unless it must be
 * respelled.
 */

/**
 * Rows per batch, and bytes of values, about: a batch ends after the row that reaches it, so
 * a batch of large spans stays far below a gRPC message's limit (24 MiB) and the gateway's
 * memory. Each batch costs every hop (gRPC, Arrow, the client's reader) a fixed amount besides
 * its bytes: 4096 spans of the usual few hundred bytes pay it a quarter as often as 1000 did.
 */
export const EXPORT_BATCH: BatchLimits = { rows: 4096, bytes: 2 << 20 };

const { COLUMN_KIND_STRING, COLUMN_KIND_INTEGER, COLUMN_KIND_FLOAT, COLUMN_KIND_JSON } = ColumnKind;

/** A span field column: its name, the kinds of its values, and what the store reads for it. */
interface FieldColumn {
  name: string;
  kinds: number;
  source: ExportColumn;
}

const field = (name: string, kinds: number, f: Extract<ExportColumn, { field: string }>["field"]) =>
  ({ name, kinds, source: { field: f } }) satisfies FieldColumn;

/**
 * The span fields, named as OpenInference's flattened export names them. `time` is the
 * start, as the SDK sorts by it; times are integer nanoseconds, which the SDK turns into
 * timestamps.
 */
const FIELDS: readonly FieldColumn[] = [
  field("context.span_id", COLUMN_KIND_STRING, "span_id"),
  field("context.trace_id", COLUMN_KIND_STRING, "trace_id"),
  field("parent_id", COLUMN_KIND_STRING, "parent_id"),
  field("name", COLUMN_KIND_STRING, "name"),
  field("span_kind", COLUMN_KIND_STRING, "kind"),
  field("start_time", COLUMN_KIND_INTEGER, "start_ns"),
  field("end_time", COLUMN_KIND_INTEGER, "end_ns"),
  field("time", COLUMN_KIND_INTEGER, "start_ns"),
  field("latency_ms", COLUMN_KIND_FLOAT, "latency_ms"),
  field("status_code", COLUMN_KIND_STRING, "status_code"),
  field("status_message", COLUMN_KIND_STRING, "status_message"),
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

/**
 * Values whose JSON has more than one spelling (a number with a fraction or an exponent, an
 * object, an array) are read as the store spells them and respelled as JavaScript does;
 * strings, booleans and integers are the same text either way.
 */
const respelled = (kinds: number) => (kinds & (COLUMN_KIND_FLOAT | COLUMN_KIND_JSON)) !== 0;

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
    fixed: Buffer.alloc(0),
  };
}

/** A column of JSON texts as the store spells them → their attribute text (attributeText). */
export function respellJson(column: TextColumn, rows: number): TextColumn {
  const offsets = new Int32Array(
    column.offsets.buffer.slice(
      column.offsets.byteOffset,
      column.offsets.byteOffset + column.offsets.byteLength,
    ),
  );
  const data = Buffer.from(column.data.buffer, column.data.byteOffset, column.data.byteLength);
  const values: (string | null)[] = new Array(rows);
  for (let i = 0; i < rows; i++) {
    const present =
      column.validity.length === 0 || (column.validity[i >> 3]! & (1 << (i & 7))) !== 0;
    values[i] = present
      ? attributeText(JSON.parse(data.toString("utf8", offsets[i], offsets[i + 1])))
      : null;
  }
  return textColumn(values);
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
      // What the store reads, each once (`time` is `start_time` again), and where each
      // column of the header finds its values.
      const read: ExportColumn[] = [];
      const at = new Map<string, number>();
      const place = (c: ExportColumn) => {
        const key = JSON.stringify(c);
        if (!at.has(key)) at.set(key, read.push(c) - 1);
        return at.get(key)!;
      };
      const places = [
        ...fields.map((f) => place(f.source)),
        ...keys.map((k) => place({ attribute: k.key, json: respelled(k.kinds) })),
      ];
      for await (const batch of deps.store.exportSpans({ ...q, columns: read }, EXPORT_BATCH)) {
        const values = batch.columns.map((c, i) => {
          const source = read[i]!;
          return "json" in source && source.json ? respellJson(c, batch.rowCount) : c;
        });
        yield {
          part: {
            $case: "batch",
            value: { rowCount: batch.rowCount, columns: places.map((p) => values[p]!) },
          },
        };
      }
    },
  };
}
