import type { SpanRow } from "../storage/spanStore.ts";

/** What a list asked to see of each span's columns (public `included_columns` / `excluded_columns`). */
export interface ColumnChoice {
  included: readonly string[];
  excluded: readonly string[];
  /** 0: no truncation. */
  truncate: number;
}

const ALL_COLUMNS: ColumnChoice = { included: [], excluded: [], truncate: 0 };

type Named = { name?: unknown };

/** Whether `column` (a full dotted path such as `attributes.llm.model_name`) names `path` or a parent of it. */
const covers = (column: string, path: string) => path === column || path.startsWith(`${column}.`);

function pick(columns: ColumnChoice, path: string): boolean {
  if (columns.included.length > 0)
    return columns.included.some((c) => covers(c, path) || covers(path, c));
  return !columns.excluded.some((c) => covers(c, path));
}

/** Cuts strings at any depth to `max` code points, the last one an ellipsis. */
function truncated(value: unknown, max: number): unknown {
  if (typeof value === "string") {
    if (value.length <= max) return value;
    const points = Array.from(value);
    return points.length <= max ? value : `${points.slice(0, max - 1).join("")}…`;
  }
  if (Array.isArray(value)) return value.map((v) => truncated(v, max));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, truncated(v, max)]));
  return value;
}

function attributesOf(row: SpanRow, columns: ColumnChoice): Record<string, unknown> {
  const kept =
    columns.included.length === 0 && columns.excluded.length === 0
      ? row.attributes
      : Object.fromEntries(
          Object.entries(row.attributes).filter(([key]) => pick(columns, `attributes.${key}`)),
        );
  return columns.truncate > 0
    ? (truncated(kept, columns.truncate) as Record<string, unknown>)
    : kept;
}

const namedOf = (list: unknown[] | null, prefix: string, columns: ColumnChoice) =>
  (list ?? []).filter((a) => pick(columns, `${prefix}.${String((a as Named).name)}`));

/**
 * One span in the public Span shape. Fixed fields always come back; attributes, annotations
 * and evaluations as the column choice says (by `attributes.<key>`, `annotation.<name>`,
 * `eval.<name>`); unknown column names match nothing, as the public API ignores them.
 */
export function renderSpan(
  row: SpanRow,
  columns: ColumnChoice = ALL_COLUMNS,
): Record<string, unknown> {
  const annotations = namedOf(row.annotations, "annotation", columns);
  const traceAnnotations = namedOf(row.trace_annotations, "annotation", columns);
  const evaluations = namedOf(row.evaluations, "eval", columns);
  const latency = Date.parse(row.end_time) - Date.parse(row.start_time);
  return {
    name: row.name,
    context: { trace_id: row.trace_id, span_id: row.span_id },
    kind: row.kind,
    ...(row.parent_id === null ? {} : { parent_id: row.parent_id }),
    start_time: row.start_time,
    end_time: row.end_time,
    latency_ms: latencyMs(row, latency),
    status_code: row.status_code,
    status_message: row.status_message,
    attributes: attributesOf(row, columns),
    annotations,
    trace_annotations: traceAnnotations,
    evaluations,
    events: row.events,
  };
}

/** Microseconds count: Date.parse keeps milliseconds only. */
function latencyMs(row: SpanRow, msApprox: number): number {
  const micros = (t: string) => Number(t.slice(20, 26));
  const us = msApprox * 1000 - (micros(row.start_time) % 1000) + (micros(row.end_time) % 1000);
  return us / 1000;
}
