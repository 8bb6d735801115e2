import * as grpc from "@grpc/grpc-js";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import type { Principal } from "@argus/proto/common/v1";
import { attachPrincipal } from "./principal.ts";
import { injectContext } from "./telemetry.ts";
import { recordDuration } from "./metrics.ts";
import { metadataCarrier, REQUEST_ID_KEY, CLIENT_IP_KEY } from "./grpcMetadata.ts";

export interface ClientMethod<Req, Res> {
  path: string;
  requestSerialize(value: Req): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

export interface CallOptions {
  principal: Principal;
  principalSecret: string;
  requestId: string;
  clientIp?: string;
  deadlineMs?: number;
  /** Only calls that are safe to repeat are retried (STYLE §9). */
  idempotent?: boolean;
}

/** One long-lived channel per target service, shared by every request. */
export function createChannel(address: string): grpc.Client {
  return new grpc.Client(address, grpc.credentials.createInsecure(), {
    "grpc.keepalive_time_ms": 30_000,
    "grpc.keepalive_permit_without_calls": 1,
    // A restarted service is found again within ~100 ms instead of the default 1 s backoff.
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 2_000,
    // With a dns:/// target every replica behind the name gets calls, not just the first.
    "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
}

// Looked up per call: a tracer taken before initTelemetry would stay a no-op.
const tracer = () => trace.getTracer("argus.grpc");
const RETRYABLE = new Set([grpc.status.UNAVAILABLE]);

function once<Req, Res>(
  client: grpc.Client,
  method: ClientMethod<Req, Res>,
  req: Req,
  opts: CallOptions,
): Promise<Res> {
  const md = new grpc.Metadata();
  attachPrincipal(md, opts.principal, opts.principalSecret);
  md.set(REQUEST_ID_KEY, opts.requestId);
  if (opts.clientIp) md.set(CLIENT_IP_KEY, opts.clientIp);
  injectContext(metadataCarrier(md));
  const deadline = new Date(Date.now() + (opts.deadlineMs ?? 5_000));
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      req,
      md,
      { deadline },
      (err, res) => (err ? reject(err) : resolve(res as Res)),
    );
  });
}

export async function callUnary<Req, Res>(
  client: grpc.Client,
  method: ClientMethod<Req, Res>,
  req: Req,
  opts: CallOptions,
): Promise<Res> {
  const rpc = method.path.slice(1);
  const started = performance.now();
  let code: grpc.status = grpc.status.OK;
  const span = tracer().startSpan(rpc, {
    kind: SpanKind.CLIENT,
    attributes: { "rpc.system": "grpc", "rpc.method": rpc },
  });
  try {
    return await context.with(trace.setSpan(context.active(), span), async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(client, method, req, opts);
        } catch (err) {
          const code = (err as grpc.ServiceError).code;
          if (!opts.idempotent || attempt >= 5 || !RETRYABLE.has(code)) throw err;
          // 0.1 + 0.2 + 0.4 + 0.8 + 1.6 s: enough to ride out a restarting service.
          await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        }
      }
    });
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    code = (err as grpc.ServiceError).code ?? grpc.status.UNKNOWN;
    throw err;
  } finally {
    span.end();
    recordDuration("rpc.client.duration", (performance.now() - started) / 1000, {
      "rpc.method": rpc,
      "rpc.grpc.status_code": code,
    });
  }
}
