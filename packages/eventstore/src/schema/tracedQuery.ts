import { createHash } from "node:crypto";
import { context, trace } from "@opentelemetry/api";
import type { QueryConfig, QueryResult, QueryResultRow } from "pg";
import { withQuerySummary } from "@argus/platform";

export const tracer = trace.getTracer("argus.eventstore");

/** A pg Pool, PoolClient or Client. */
export interface Queryable {
  query<Row extends QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>>;
}

/**
 * How many distinct statements a process prepares. Postgres keeps each one (parse tree and
 * plan) per connection, and a pool's connections close after 10 s idle; past the bound a
 * statement runs unnamed, as every statement did before. A service's own SQL is far fewer
 * texts: only statements built with a varying number of placeholders could reach it.
 */
export const PREPARED_STATEMENTS_MAX = 256;

// `*` projections are left unnamed: a migration adding a column changes their rows' type,
// which a prepared statement refuses ("cached plan must not change result type") on every
// connection of an older process still running during a rolling upgrade. A `*` over a
// function's rows (`unnest(…)`, `jsonb_to_recordset(…) as x(…)`) is not one: no migration
// changes those, and left unnamed, such a statement was parsed and planned on every call (a
// bulk projection's: ~1 ms of Postgres per write).
const STAR_PROJECTION =
  /(?:^|[\s,.(])\*\s*(?:,|from\b(?!\s+[a-z_][\w.]*\s*\()|$)|\breturning\s+\*/i;

const prepared = new Map<string, string | null>();

/**
 * The name `text` is prepared under, or undefined to run it unnamed. A name is the hash of the
 * text, so two copies of this module sharing a connection never give one name two texts.
 */
export function preparedName(text: string): string | undefined {
  let name = prepared.get(text);
  if (name === undefined) {
    if (prepared.size >= PREPARED_STATEMENTS_MAX) return undefined;
    name = STAR_PROJECTION.test(text)
      ? null
      : `argus_${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`;
    prepared.set(text, name);
  }
  return name ?? undefined;
}

/**
 * Runs one SQL statement named `name`. A statement with parameters is prepared once per
 * connection (`preparedName`): Postgres then binds and runs it without parsing and planning it
 * again, about half its CPU for a lookup by key (bench/README.md). Its span is the pg
 * instrumentation's (when the process runs the OpenTelemetry SDK), named `name` rather than
 * after the SQL's first keyword; on a Pool it is a statement of its own. Only the parameterised
 * text is recorded, never the values, so no payload or secret reaches the traces.
 */
export function tracedQuery<Row extends QueryResultRow = QueryResultRow>(
  client: Queryable,
  name: string,
  text: string,
  values: readonly unknown[] = [],
): Promise<QueryResult<Row>> {
  // Parameterless statements (BEGIN, a lock, a probe) go by the simple protocol, as before.
  const statement = values.length > 0 ? preparedName(text) : undefined;
  const config: QueryConfig = { text, values: values as unknown[], name: statement };
  // Outside a recorded trace no span is made (the instrumentation asks for a parent): no name.
  if (!trace.getActiveSpan()?.isRecording()) return client.query<Row>(config);
  return context.with(withQuerySummary(context.active(), name), () => client.query<Row>(config));
}

/** One SQL statement of the caller's code: its span's name, its text and its values. */
export interface Statement {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

/** Runs `statement` as `tracedQuery` does. */
export const runStatement = (client: Queryable, { name, text, values }: Statement) =>
  tracedQuery(client, name, text, values);
