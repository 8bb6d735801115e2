// A tracing metric as ONE SQL aggregate over the project's spans in a window, next to the
// data: no span leaves Postgres. Every user value (attribute keys, names, filter values)
// reaches Postgres as a parameter; the SQL around them is written here.
import type { Pool, PoolClient } from "pg";
import type { MonitorDimension, MonitorFilter, TracingMetric } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";

/** What a metric computes over: the monitor's (or a widget plot's) metric, dimension, filters. */
export interface MetricSpec {
  metric: TracingMetric;
  dimension: MonitorDimension;
  filters: readonly MonitorFilter[];
}

/** Parameters of one statement: `add` returns the placeholder with its cast. */
class Params {
  readonly values: unknown[];
  constructor(first: unknown[]) {
    this.values = [...first];
  }
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/** A dimension's value for span row `s`: as a number (null when none) and as text. */
interface ValueSql {
  num: string;
  text: string;
  /** An attribute's jsonb value (lists are matched element by element). */
  json?: string;
}

const FIELD_COLUMNS: Readonly<Record<string, string>> = {
  name: "s.name",
  span_kind: "s.kind",
  kind: "s.kind",
  status_code: "s.status_code",
  status_message: "s.status_message",
  parent_id: "s.parent_id",
  trace_id: "s.trace_id",
  span_id: "s.span_id",
  "context.trace_id": "s.trace_id",
  "context.span_id": "s.span_id",
};

const LATENCY_MS = "(extract(epoch from (s.end_time - s.start_time)) * 1000)::float8";

/** jsonb → float8 when it is a JSON number; any other value has no number. */
const jsonNumber = (j: string) =>
  `(case when jsonb_typeof(${j}) = 'number' then (${j})::float8 end)`;
/** jsonb → text (a string as itself, JSON null as SQL null). */
const jsonText = (j: string) => `(${j} #>> '{}')`;

/**
 * An annotation of the span (SPAN granularity) or, on a root span, of its trace (TRACE): the
 * public API annotates a trace on its root span.
 */
const annotationOf = (column: "score" | "label", name: string) =>
  `coalesce(
     (select a.${column} from span_annotations a
       where a.project_id = s.project_id and a.granularity = 'SPAN'
         and a.record_id = s.span_id and a.name = ${name}),
     case when s.parent_id is null then
       (select a.${column} from span_annotations a
         where a.project_id = s.project_id and a.granularity = 'TRACE'
           and a.record_id = s.trace_id and a.name = ${name}) end)`;

function valueOf(d: MonitorDimension, params: Params): ValueSql {
  switch (d.category) {
    case "SPAN_ATTRIBUTE": {
      if (d.name === "latency_ms") return { num: LATENCY_MS, text: `${LATENCY_MS}::text` };
      const column = FIELD_COLUMNS[d.name];
      if (column) return { num: "null::float8", text: column };
      // An attribute key: OTLP writes keys dotted (`llm.token_count.total`) at the top level;
      // `attributes.<key>` names the same, as the span filter language does.
      const key = d.name.startsWith("attributes.") ? d.name.slice("attributes.".length) : d.name;
      const j = `(s.attributes -> ${params.add(key, "text")})`;
      return { num: jsonNumber(j), text: jsonText(j), json: j };
    }
    case "LLM_EVAL": {
      const name = params.add(d.name, "text");
      const of = (column: string) =>
        `(select e.${column} from span_evaluations e
           where e.project_id = s.project_id and e.span_id = s.span_id and e.name = ${name})`;
      return { num: of("score"), text: of("label") };
    }
    case "USER_ANNOTATION": {
      const name = params.add(d.name, "text");
      return { num: annotationOf("score", name), text: annotationOf("label", name) };
    }
  }
}

/** One filter as a two-valued predicate (never NULL) on span row `s`. */
function filterSql(f: MonitorFilter, params: Params): string {
  const v = valueOf(f.dimension, params);
  switch (f.operator) {
    case "GREATER_THAN":
    case "GREATER_THAN_OR_EQUAL":
    case "LESS_THAN":
    case "LESS_THAN_OR_EQUAL": {
      const op = {
        GREATER_THAN: ">",
        GREATER_THAN_OR_EQUAL: ">=",
        LESS_THAN: "<",
        LESS_THAN_OR_EQUAL: "<=",
      }[f.operator];
      return `coalesce(${v.num} ${op} ${params.add(Number(f.values[0]), "float8")}, false)`;
    }
    case "EQUALS":
      return `coalesce(${v.text} = any(${params.add(f.values, "text[]")}), false)`;
    case "NOT_EQUALS":
      // An absent value equals none of them.
      return `coalesce(not (${v.text} = any(${params.add(f.values, "text[]")})), true)`;
    case "CONTAINS_STRING":
      return `coalesce(strpos(${v.text}, ${params.add(f.values[0], "text")}) > 0, false)`;
    case "CONTAINS": {
      // A list attribute holding one of the values, else a text containing one of them.
      const values = params.add(f.values, "text[]");
      const inText = `exists (select 1 from unnest(${values}) x where strpos(${v.text}, x) > 0)`;
      if (!v.json) return `coalesce(${inText}, false)`;
      return `coalesce(case jsonb_typeof(${v.json})
                 when 'array' then exists (select 1 from unnest(${values}) x
                                            where ${v.json} @> jsonb_build_array(x))
                 else ${inText} end, false)`;
    }
  }
}

/** The aggregate of `metric` over the rows where `where` holds (SQL, or "" for every row). */
function aggregateSql(metric: TracingMetric, v: ValueSql, where: string): string {
  const only = (extra: string) => {
    const both = [where, extra].filter(Boolean).join(" and ");
    return both ? ` filter (where ${both})` : "";
  };
  const pct = (q: number) => `percentile_cont(${q}) within group (order by ${v.num})${only("")}`;
  switch (metric) {
    case "COUNT":
      return `count(*)${only(`${v.text} is not null`)}::float8`;
    case "PERCENT_EMPTY":
      return `(100.0 * count(*)${only(`coalesce(${v.text}, '') = ''`)} / nullif(count(*)${only("")}, 0))::float8`;
    case "CARDINALITY":
      return `count(distinct ${v.text})${only("")}::float8`;
    case "AVG":
      return `avg(${v.num})${only("")}`;
    case "SUM":
      return `sum(${v.num})${only("")}`;
    case "STANDARD_DEVIATION":
      return `stddev_pop(${v.num})${only("")}`;
    case "P50":
      return pct(0.5);
    case "P95":
      return pct(0.95);
    case "P99":
      return pct(0.99);
    case "P99_9":
      return pct(0.999);
  }
}

interface MetricQuery {
  sql: string;
  params: unknown[];
}

/**
 * The metric over the project's spans with start times in [start, end): one row with `spans`
 * (every span of the window, before filters) and `value` (null when nothing had a value).
 */
function metricQuery(spec: MetricSpec, projectId: string, start: Date, end: Date): MetricQuery {
  const params = new Params([projectId, start.toISOString(), end.toISOString()]);
  const v = valueOf(spec.dimension, params);
  const where = spec.filters.map((f) => filterSql(f, params)).join(" and ");
  return {
    sql: `select count(*)::float8 as spans, ${aggregateSql(spec.metric, v, where)} as value
            from spans s
           where s.project_id = $1 and s.start_time >= $2::timestamptz and s.start_time < $3::timestamptz`,
    params: params.values,
  };
}

/**
 * The metric per interval of `widthSeconds` from `start` (the last one ending at `end`): one
 * row per interval that holds spans, `bucket` its index from 0.
 */
function seriesQuery(
  spec: MetricSpec,
  projectId: string,
  start: Date,
  end: Date,
  widthSeconds: number,
): MetricQuery {
  const params = new Params([projectId, start.toISOString(), end.toISOString(), widthSeconds]);
  const v = valueOf(spec.dimension, params);
  const where = spec.filters.map((f) => filterSql(f, params)).join(" and ");
  return {
    sql: `select floor(extract(epoch from (s.start_time - $2::timestamptz)) / $4::float8)::int as bucket,
                 count(*)::float8 as spans, ${aggregateSql(spec.metric, v, where)} as value
            from spans s
           where s.project_id = $1 and s.start_time >= $2::timestamptz and s.start_time < $3::timestamptz
           group by 1 order by 1`,
    params: params.values,
  };
}

type Db = Pool | PoolClient;

const toNumber = (v: unknown): number | null =>
  v === null || v === undefined ? null : Number.isFinite(Number(v)) ? Number(v) : null;

/** The metric of one window. */
export async function measureWindow(
  db: Db,
  spec: MetricSpec,
  projectId: string,
  window: { start: Date; end: Date },
): Promise<{ spans: number; value: number | null }> {
  const q = metricQuery(spec, projectId, window.start, window.end);
  const row = (
    await tracedQuery<{ spans: number; value: unknown }>(db, "monitor metric", q.sql, q.params)
  ).rows[0];
  return { spans: Number(row?.spans ?? 0), value: toNumber(row?.value) };
}

/** The metric per interval: `count` intervals of `widthSeconds` from `start`, null where empty. */
export async function measureSeries(
  db: Db,
  spec: MetricSpec,
  projectId: string,
  start: Date,
  widthSeconds: number,
  count: number,
): Promise<{ spans: number; value: number | null }[]> {
  const end = new Date(start.getTime() + widthSeconds * count * 1000);
  const q = seriesQuery(spec, projectId, start, end, widthSeconds);
  const res = await tracedQuery<{ bucket: number; spans: number; value: unknown }>(
    db,
    "metric series",
    q.sql,
    q.params,
  );
  const out = Array.from({ length: count }, () => ({ spans: 0, value: null as number | null }));
  for (const r of res.rows)
    if (r.bucket >= 0 && r.bucket < count)
      out[r.bucket] = { spans: Number(r.spans), value: toNumber(r.value) };
  return out;
}
