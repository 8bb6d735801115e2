import type { Request } from "express";
import { DomainError, decodeId, type Principal } from "@argus/platform";
import {
  Encoding,
  TracingServiceService,
  type ExportRequest,
  type ExportResponse,
} from "@argus/proto/tracing/v1/tracing";
import { authenticate, chargeKey, type Authenticator } from "../auth/authenticate.ts";
import type { Backend, Caller } from "../backend.ts";
import type { GatewayLimiters } from "../http/rateLimit.ts";
import type { RequestContext } from "../http/requestContext.ts";
import type { OtlpEncoding } from "./wire.ts";

/** The tracing service's Export, on behalf of an authenticated request. */
export type TraceExport = (request: ExportRequest, from: Caller) => Promise<ExportResponse>;

export const tracingExport =
  (tracing: Backend): TraceExport =>
  (request, from) =>
    tracing.call(TracingServiceService.export, request, from);

export interface IngestDeps {
  authenticator: Authenticator;
  /** The REST operations' own: one budget per key and per address, whatever they call. */
  limiters: GatewayLimiters;
  export: TraceExport;
}

/** One header of the request (HTTP) or call (gRPC metadata) by lowercase name. */
export type HeaderLookup = (name: string) => string | undefined;

const present = (v: string | undefined): string | undefined => (v?.trim() ? v.trim() : undefined);

/**
 * The `Authorization` header the gateway's authenticator reads, from what OTLP clients send:
 * `authorization: Bearer <key>` (OTel exporters' OTEL_EXPORTER_OTLP_HEADERS), the raw key in
 * `authorization` (arize-otel), or an `api_key` header (arize-otel, older Arize SDKs).
 */
function bearerOf(headers: HeaderLookup): string | undefined {
  const authorization = present(headers("authorization"));
  if (authorization !== undefined)
    return /^bearer /i.test(authorization) ? authorization : `Bearer ${authorization}`;
  const apiKey = present(headers("api_key"));
  return apiKey === undefined ? undefined : `Bearer ${apiKey}`;
}

/**
 * authenticate.ts reads nothing of an Express request but its Authorization header: this one
 * carries the OTLP credentials, so HTTP and gRPC share its local checks, failure budget and
 * identity lookup rather than a copy of them.
 */
const carrying = (authorization: string | undefined): Request =>
  ({
    get: (name: string) => (name.toLowerCase() === "authorization" ? authorization : undefined),
  }) as unknown as Request;

/** The caller of an OTLP request, or of another HTTP path of the SDK's (`/v1/pandas_arrow`). */
export async function authenticateOtlp(
  headers: HeaderLookup,
  deps: Pick<IngestDeps, "authenticator" | "limiters">,
  ctx: RequestContext,
): Promise<Principal> {
  try {
    return await authenticate(
      carrying(bearerOf(headers)),
      { authenticator: deps.authenticator, failures: deps.limiters.failures },
      ctx,
    );
  } catch (err) {
    // authenticate.ts names the REST header; an OTLP client has more ways to send a key.
    if (ctx.auth === "missing")
      throw new DomainError(
        "authentication-required",
        "an API key is required: 'authorization: Bearer <API key>' (or the bare key), or 'api_key'",
      );
    throw err;
  }
}

/** The internal uuid of the space the spans go to: `arize-space-id`, else `space_id`. */
function spaceIdOf(headers: HeaderLookup): string {
  const raw = present(headers("arize-space-id")) ?? present(headers("space_id"));
  if (raw === undefined)
    throw new DomainError("invalid-request", "the arize-space-id header is required");
  // OTLP has no 404 for a malformed id: the request itself is wrong, so 400.
  const id = decodeId("Space", raw);
  if (id === null) throw new DomainError("invalid-request", "arize-space-id is not a space id");
  return id;
}

export interface OtlpExport {
  headers: HeaderLookup;
  /** Reads the (decompressed, bounded) body; called only once the caller is admitted. */
  payload: () => Promise<Buffer>;
  encoding: OtlpEncoding;
}

const ENCODINGS: Readonly<Record<OtlpEncoding, Encoding>> = {
  protobuf: Encoding.ENCODING_PROTOBUF,
  json: Encoding.ENCODING_JSON,
};

/**
 * One OTLP export, whichever transport brought it, in the gateway's order: authenticate, the
 * key's rate limit, the space header, and only then the body, so a refused caller never makes
 * the gateway read (or decompress) 16 MiB. The body itself is the tracing service's to decode.
 */
export async function ingest(
  req: OtlpExport,
  deps: IngestDeps,
  ctx: RequestContext,
): Promise<ExportResponse> {
  const principal = await authenticateOtlp(req.headers, deps, ctx);
  chargeKey(deps.limiters.perKey, principal);
  const spaceId = spaceIdOf(req.headers);
  const payload = await req.payload();
  return deps.export(
    { payload, encoding: ENCODINGS[req.encoding], spaceId },
    { principal, requestId: ctx.requestId, clientIp: ctx.clientIp },
  );
}
