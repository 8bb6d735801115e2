import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { QueryResult, QueryResultRow } from "pg";

export const tracer = trace.getTracer("argus.eventstore");

/** A pg Pool, PoolClient or Client. */
export interface Queryable {
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<Row>>;
}

/**
 * Runs one SQL statement inside a CLIENT span named `name`; on a Pool it is a statement of its own. Only the parameterised text is
 * recorded, never the values, so no payload or secret reaches the traces.
 */
export function tracedQuery<Row extends QueryResultRow = QueryResultRow>(
  client: Queryable,
  name: string,
  text: string,
  values: readonly unknown[] = [],
): Promise<QueryResult<Row>> {
  const attributes = {
    "db.system.name": "postgresql",
    "db.operation.name": name,
    "db.query.text": text,
  };
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await client.query<Row>(text, values as unknown[]);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
