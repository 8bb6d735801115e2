import type { RequestHandler } from "express";
import { RecordBatchReader, type RecordBatch, type Schema } from "apache-arrow";
import { DomainError } from "@argus/platform";
import { Schema as ArizeSchema, Schema_Environment } from "@argus/proto/public/public";
import { Encoding, type WriteSpanUpdatesResponse } from "@argus/proto/tracing/v1/tracing";
import { chargeKey } from "../auth/authenticate.ts";
import { requestContext, setRoute } from "../http/requestContext.ts";
import type { GatewayLimiters } from "../http/rateLimit.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import { readOtlpBody } from "../otlp/body.ts";
import { authenticateOtlp, type TraceExport } from "../otlp/ingest.ts";
import { checkIpcStream } from "./ipcGuard.ts";
import { idOf, invalid } from "./requests.ts";
import { isSpanLog, spanLogExport, spanLogLayout } from "./spanLog.ts";
import type { SpanTarget, spanFlight } from "./spans.ts";

/**
 * `POST /v1/pandas_arrow`, the SDK's HTTP path for columnar uploads (public-v2-flight.md §5):
 * an Arrow IPC stream whose schema metadata `arize-schema` names the project, the space in
 * `arize-space-id`, the raw key in `authorization`. Two uploads are served: `spans.log`'s
 * spans (spanLog.ts: the same OTLP ingestion, all or nothing) and what
 * `spans.update_evaluations` sends with force_http (the same write as Flight's
 * writeSpanEvaluationRequest); both are read under the OTLP request's size limit. Classic ML
 * uploads (`ml.log`) are refused. The SDK reads only the status; the body says what was
 * written.
 */

export const PANDAS_ARROW_PATH = "/v1/pandas_arrow";

export interface PandasArrowDeps {
  authenticator: Authenticator;
  limiters: GatewayLimiters;
  spans: Pick<ReturnType<typeof spanFlight>, "readEvaluations" | "writeEvaluations">;
  /** The tracing service's OTLP ingestion, which `spans.log`'s spans go through. */
  export: TraceExport;
  /**
   * ARGUS_OTLP_MAX_BODY_BYTES: the largest upload read, and the largest OTLP request a log's
   * spans may make, as an export of the same spans over OTLP would be bounded.
   */
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
    throw invalid("only tracing uploads (spans.log, spans.update_evaluations) are served here");
  const name = schema.constants.modelId;
  if (name.trim() === "") throw invalid("'arize-schema' names no project (constants.model_id)");
  return name;
}

/**
 * Every column named: the IPC format lets a field go unnamed (apache-arrow then reads its name
 * as null), and every check after this one reads columns by name.
 */
export function requireColumnNames(schema: Schema): void {
  const unnamed = schema.fields.findIndex(
    (f) => typeof (f.name as unknown) !== "string" || f.name === "",
  );
  if (unnamed >= 0) throw invalid(`column ${unnamed} of the Arrow schema has no name`);
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
    checkIpcStream(body);
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
    requireColumnNames(schema);
    const where: SpanTarget = {
      spaceId,
      projectName: projectOfArizeSchema(schema.metadata.get("arize-schema")),
    };
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished)
        abort.abort(new DomainError("service-unavailable", "the client went away"));
    });
    const caller = { principal, ctx, signal: abort.signal };
    const upload = () => ({
      schema,
      batches: (async function* () {
        yield* batches;
      })(),
    });
    const updated = (answer: WriteSpanUpdatesResponse) => ({
      records_updated: Number(answer.recordsUpdated),
      unmatched_ids: answer.unmatchedIds,
    });

    if (!isSpanLog(schema)) {
      const answer = await deps.spans.writeEvaluations(where, upload(), caller);
      res
        .status(200)
        .type("application/json")
        .send(JSON.stringify(updated(answer)));
      return;
    }
    const layout = spanLogLayout(schema);
    // The evaluations joined to the spans (log's evals_dataframe) are read and checked now, so
    // that a bad one refuses the upload before a span is stored, and written once they are.
    const writeEvaluations =
      layout.evaluations.length > 0
        ? await deps.spans.readEvaluations(upload(), { columns: layout.evaluations })
        : undefined;
    const { payload, spans } = await spanLogExport(
      layout,
      batches,
      where.projectName,
      deps.maxBodyBytes,
    );
    await deps.export(
      { payload, encoding: Encoding.ENCODING_PROTOBUF, spaceId, allOrNothing: true },
      { principal, requestId: ctx.requestId, clientIp: ctx.clientIp },
    );
    const evaluated = writeEvaluations && updated(await writeEvaluations(where, caller));
    res
      .status(200)
      .type("application/json")
      .send(
        JSON.stringify({ spans_logged: spans, ...(evaluated ? { evaluations: evaluated } : {}) }),
      );
  };
}
