import { context, trace } from "@opentelemetry/api";
import type { QueryResult, QueryResultRow } from "pg";
import { withQuerySummary } from "@argus/platform";

export const tracer = trace.getTracer("argus.eventstore");

/** A pg Pool, PoolClient or Client. */
export interface Queryable {
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<Row>>;
}

/**
 * Runs one SQL statement named `name`. Its span is the pg instrumentation's (when the process
 * runs the OpenTelemetry SDK), named `name` rather than after the SQL's first keyword; on a Pool
 * it is a statement of its own. Only the parameterised text is recorded, never the values, so no
 * payload or secret reaches the traces.
 */
export function tracedQuery<Row extends QueryResultRow = QueryResultRow>(
  client: Queryable,
  name: string,
  text: string,
  values: readonly unknown[] = [],
): Promise<QueryResult<Row>> {
  // Outside a recorded trace no span is made (the instrumentation asks for a parent): no name.
  if (!trace.getActiveSpan()?.isRecording()) return client.query<Row>(text, values as unknown[]);
  return context.with(withQuerySummary(context.active(), name), () =>
    client.query<Row>(text, values as unknown[]),
  );
}
