import type { RequestHandler } from "express";
import { RecordBatchReader, type RecordBatch, type Schema } from "apache-arrow";
import { DomainError } from "@argus/platform";
import { Schema as ArizeSchema, Schema_Environment } from "@argus/proto/public/public";
import { chargeKey } from "../auth/authenticate.ts";
import { requestContext, setRoute } from "../http/requestContext.ts";
import type { GatewayLimiters } from "../http/rateLimit.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import { readOtlpBody } from "../otlp/body.ts";
import { authenticateOtlp } from "../otlp/ingest.ts";
import { idOf, invalid } from "./requests.ts";
import { EVALUATIONS, SPAN_ID_COLUMN, type SpanTarget, type spanFlight } from "./spans.ts";

/**
 * `POST /v1/pandas_arrow`, the SDK's HTTP path for columnar uploads (public-v2-flight.md §5):
 * an Arrow IPC stream whose schema metadata `arize-schema` names the project, the space in
 * `arize-space-id`, the raw key in `authorization`. Served for what `spans.update_evaluations`
 * sends with force_http (the same write as Flight's writeSpanEvaluationRequest); other uploads
 * (`spans.log`, `ml.log`) are refused. The SDK reads only the status; the body says what was
 * written, as Flight's answer does.
 */

export const PANDAS_ARROW_PATH = "/v1/pandas_arrow";

export interface PandasArrowDeps {
  authenticator: Authenticator;
  limiters: GatewayLimiters;
  spans: Pick<ReturnType<typeof spanFlight>, "writeEvaluations">;
  /** The largest upload read (the REST body limit's, as bulk uploads belong on Flight). */
  maxBodyBytes: number;
}

/** The project an `arize-schema` names, if it is a tracing upload's. */
export function projectOfArizeSchema(base64: string | undefined): string {
  if (base64 === undefined) throw invalid("the Arrow schema has no 'arize-schema' metadata");
  let schema: ArizeSchema;
  try {
    schema = ArizeSchema.decode(Buffer.from(base64, "base64"));
  } catch (err) {
    throw invalid(
      `'arize-schema' is not a base64 public.Schema: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (schema.constants?.environment !== Schema_Environment.TRACING)
    throw invalid("only tracing uploads (spans.update_evaluations) are served here");
  const name = schema.constants.modelId;
  if (name.trim() === "") throw invalid("'arize-schema' names no project (constants.model_id)");
  return name;
}

/** Evaluation columns only: what update_evaluations sends (spans.log sends spans). */
function checkEvaluationUpload(names: readonly string[]): void {
  const evalColumn = new RegExp(`^${EVALUATIONS.prefix}\\.`);
  const other = names.find((n) => n !== SPAN_ID_COLUMN && !evalColumn.test(n));
  if (other !== undefined)
    throw invalid(
      `column ${JSON.stringify(other)}: only spans.update_evaluations uploads (context.span_id and eval.* columns) are served at ${PANDAS_ARROW_PATH}; log spans over OTLP`,
    );
}

export function pandasArrowRoute(deps: PandasArrowDeps): RequestHandler {
  return async (req, res) => {
    const ctx = requestContext(req);
    setRoute(ctx, PANDAS_ARROW_PATH);
    const principal = await authenticateOtlp((name) => req.get(name), deps, ctx);
    chargeKey(deps.limiters.perKey, principal);
    const header = req.get("arize-space-id");
    if (!header?.trim()) throw invalid("the arize-space-id header is required");
    const spaceId = idOf("Space", header.trim(), "arize-space-id");
    const body = await readOtlpBody(req, "identity", deps.maxBodyBytes);
    let schema: Schema;
    let batches: RecordBatch[];
    try {
      const reader = RecordBatchReader.from(body).open();
      // The schema is known once the reader is open; iterating closes the reader.
      schema = reader.schema;
      batches = Array.from(reader as Iterable<RecordBatch>);
    } catch (err) {
      throw invalid(
        `the body is not an Arrow IPC stream: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (!schema) throw invalid("the body is not an Arrow IPC stream: it has no schema");
    const where: SpanTarget = {
      spaceId,
      projectName: projectOfArizeSchema(schema.metadata.get("arize-schema")),
    };
    checkEvaluationUpload(schema.fields.map((f) => f.name));
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished)
        abort.abort(new DomainError("service-unavailable", "the client went away"));
    });
    const answer = await deps.spans.writeEvaluations(
      where,
      {
        schema,
        batches: (async function* () {
          yield* batches;
        })(),
      },
      { principal, ctx, signal: abort.signal },
    );
    res
      .status(200)
      .type("application/json")
      .send(
        JSON.stringify({
          records_updated: Number(answer.recordsUpdated),
          unmatched_ids: answer.unmatchedIds,
        }),
      );
  };
}
