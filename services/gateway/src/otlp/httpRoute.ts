import type { RequestHandler, Response } from "express";
import { DomainError, describeError } from "@argus/platform";
import { requestContext, setRoute, type RequestContext } from "../http/requestContext.ts";
import { contentCodingOf, readOtlpBody } from "./body.ts";
import { otlpFailureOf } from "./failure.ts";
import { ingest, type IngestDeps } from "./ingest.ts";
import {
  MEDIA_TYPES,
  encodeExportResponse,
  encodeStatus,
  encodingOf,
  type OtlpEncoding,
} from "./wire.ts";

/**
 * OTLP/HTTP's trace path, which exporters append to their base endpoint, and the base itself:
 * arize-otel's HTTP transport posts to the endpoint it is given as is (`<base>/v1`), as the
 * public platform takes it.
 */
export const OTLP_TRACES_PATHS = ["/v1/traces", "/v1"];

export interface OtlpHttpDeps extends IngestDeps {
  /** ARGUS_OTLP_MAX_BODY_BYTES: bounds the wire and the decompressed size alike. */
  maxBodyBytes: number;
}

function send(res: Response, status: number, encoding: OtlpEncoding, body: Buffer): void {
  res.status(status).set("Cache-Control", "no-store").type(MEDIA_TYPES[encoding]).send(body);
}

/** Logged like the app's error handler does, for failures that are not the caller's. */
function logUnexpected(ctx: RequestContext, err: unknown): void {
  ctx.logger.error("unhandled error", {
    error: describeError(err),
  });
  if (err instanceof Error) ctx.span.recordException(err);
}

/**
 * `POST /v1/traces` (OTLP/HTTP): every answer, errors included, is OTLP's own (an
 * ExportTraceServiceResponse or a google.rpc.Status in the request's encoding; JSON when the
 * request's is unknown), never a REST Problem: exporters decode nothing else.
 */
export function otlpTracesRoute(deps: OtlpHttpDeps): RequestHandler {
  return async (req, res) => {
    const ctx = requestContext(req);
    setRoute(ctx, req.path);
    const declared = encodingOf(req.get("content-type"));
    const encoding = declared ?? "json";
    try {
      if (declared === undefined)
        throw new DomainError(
          "unsupported-media-type",
          "Content-Type must be application/x-protobuf or application/json",
        );
      const coding = contentCodingOf(req.get("content-encoding"));
      const result = await ingest(
        {
          headers: (name) => req.get(name),
          payload: () => readOtlpBody(req, coding, deps.maxBodyBytes),
          encoding,
        },
        deps,
        ctx,
      );
      send(res, 200, encoding, encodeExportResponse(result, encoding));
    } catch (err) {
      const failure = otlpFailureOf(err);
      if (failure.unexpected) logUnexpected(ctx, err);
      if (failure.retryAfterSeconds !== undefined)
        res.set("Retry-After", String(failure.retryAfterSeconds));
      // RFC 9110: a 401 names the scheme that would succeed.
      if (failure.http === 401) res.set("WWW-Authenticate", 'Bearer realm="argus"');
      send(res, failure.http, encoding, encodeStatus(failure.grpc, failure.message, encoding));
    }
  };
}
