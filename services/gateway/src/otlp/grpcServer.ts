import * as grpc from "@grpc/grpc-js";
import { isValidTraceId } from "@opentelemetry/api";
import { describeError, recordDuration, type Logger } from "@argus/platform";
import {
  ExportTraceServiceResponse,
  TraceServiceService,
} from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { ExportResponse } from "@argus/proto/tracing/v1/tracing";
import { grpcRequestContext } from "../http/requestContext.ts";
import { otlpFailureOf, type OtlpFailure } from "./failure.ts";
import { ingest, type HeaderLookup, type IngestDeps } from "./ingest.ts";
import { encodeRetryInfo, encodeStatusProto, toTraceServiceResponse } from "./wire.ts";

const METHOD = TraceServiceService.export.path;
const RPC = METHOD.slice(1);

/**
 * TraceService/Export with the request left as bytes: the gateway forwards them to tracing
 * unchanged (tracing decodes OTLP, and a body it cannot decode is its INVALID_ARGUMENT), so
 * nothing is decoded twice. The answer is OTLP's own message, built from tracing's.
 */
const definition: grpc.ServiceDefinition = {
  Export: {
    path: METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: (bytes: Buffer) => bytes,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (res: ExportResponse) =>
      Buffer.from(ExportTraceServiceResponse.encode(toTraceServiceResponse(res)).finish()),
    responseDeserialize: (bytes: Buffer) => ExportTraceServiceResponse.decode(bytes),
  },
};

export interface OtlpGrpcOptions {
  host: string;
  /** ARGUS_OTLP_GRPC_PORT (never 0 here: 0 disables the server, see server.ts). */
  port: number;
  /** ARGUS_OTLP_MAX_BODY_BYTES: grpc-js refuses larger messages, compressed or not. */
  maxMessageBytes: number;
  deps: IngestDeps;
  logger: Logger;
}

export interface RunningOtlpGrpc {
  port: number;
  stop(graceMs?: number): Promise<void>;
}

const lookup =
  (md: grpc.Metadata): HeaderLookup =>
  (name) => {
    const v = md.get(name)[0];
    return typeof v === "string" ? v : undefined;
  };

/**
 * The gRPC error an OTLP/gRPC client reads. A retryable RESOURCE_EXHAUSTED carries RetryInfo,
 * without which OTLP clients drop the batch rather than retry it: in `grpc-status-details-bin`
 * (the standard rich status) and in `google.rpc.retryinfo-bin` (which OTel Python reads).
 */
function toServiceError(f: OtlpFailure): Partial<grpc.ServiceError> & { code: grpc.status } {
  const metadata = new grpc.Metadata();
  if (f.retryAfterSeconds !== undefined) {
    metadata.set(
      "grpc-status-details-bin",
      encodeStatusProto(f.grpc, f.message, f.retryAfterSeconds),
    );
    metadata.set("google.rpc.retryinfo-bin", encodeRetryInfo(f.retryAfterSeconds));
  }
  return { code: f.grpc, details: f.message, metadata };
}

function exportHandler(
  opts: Pick<OtlpGrpcOptions, "deps" | "logger">,
): grpc.handleUnaryCall<Buffer, ExportResponse> {
  return (call, callback) => {
    const md = lookup(call.metadata);
    const ctx = grpcRequestContext(call.getPeer(), METHOD, opts.logger);
    const span = ctx.span;
    const started = performance.now();
    const done = (code: grpc.status) => {
      const seconds = (performance.now() - started) / 1000;
      recordDuration("rpc.server.duration", seconds, {
        "rpc.method": RPC,
        "rpc.grpc.status_code": code,
      });
      ctx.logger.info("request", {
        rpc: RPC,
        ...(ctx.auth ? { auth: ctx.auth } : {}),
        ...(ctx.principalCache ? { principal_cache: ctx.principalCache } : {}),
        grpc_status: code,
        duration_ms: Math.round(seconds * 1_000_000) / 1000,
        ...(isValidTraceId(traceId) ? { trace_id: traceId } : {}),
      });
    };
    const traceId = span.spanContext().traceId;
    void (async () => {
      try {
        const res = await ingest(
          { headers: md, payload: async () => call.request, encoding: "protobuf" },
          opts.deps,
          ctx,
        );
        callback(null, res);
        done(grpc.status.OK);
      } catch (err) {
        const failure = otlpFailureOf(err);
        if (failure.unexpected) {
          ctx.logger.error("unhandled error", {
            error: describeError(err),
          });
          if (err instanceof Error) span.recordException(err);
        }
        callback(toServiceError(failure));
        done(failure.grpc);
      }
    })();
  };
}

/**
 * TraceService/Export for a gRPC server that takes larger messages than OTLP allows (the one
 * the gateway's single port shares with Flight): an export over `maxMessageBytes` is refused
 * here, as grpc-js refuses it on the OTLP listener.
 */
export function otlpTraceService(opts: Omit<OtlpGrpcOptions, "host" | "port">): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const handler = exportHandler(opts);
  const bounded: grpc.handleUnaryCall<Buffer, ExportResponse> = (call, callback) => {
    if (call.request.length > opts.maxMessageBytes)
      return callback({
        code: grpc.status.RESOURCE_EXHAUSTED,
        details: `Received message larger than max (${call.request.length} vs ${opts.maxMessageBytes})`,
      });
    handler(call, callback);
  };
  return { definition, implementation: { Export: bounded } };
}

/** OTLP/gRPC's trace endpoint, beside the REST listener, with the same auth and limits. */
export async function startOtlpGrpcServer(opts: OtlpGrpcOptions): Promise<RunningOtlpGrpc> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": opts.maxMessageBytes,
    // A bounded connection age makes exporters re-resolve, so new gateway replicas get traffic.
    "grpc.max_connection_age_ms": 300_000,
    "grpc.max_connection_age_grace_ms": 30_000,
    "grpc.keepalive_permit_without_calls": 1,
  });
  server.addService(definition, { Export: exportHandler(opts) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      // An IPv6 literal (`::`) takes brackets before the port.
      opts.host.includes(":") ? `[${opts.host}]:${opts.port}` : `${opts.host}:${opts.port}`,
      grpc.ServerCredentials.createInsecure(),
      (err, bound) => (err ? reject(err) : resolve(bound)),
    ),
  );
  return {
    port,
    stop: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
