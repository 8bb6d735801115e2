import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { callVerifier, type CallTrust, type CallVerifier } from "./callCredentials.ts";
import { runInCall, type CallContext } from "./context.ts";
import { DomainError, toGrpcError } from "./errors.ts";
import type { Logger } from "./logger.ts";
import { NOBODY } from "./principal.ts";
import { extractContext } from "./telemetry.ts";
import { recordDuration } from "./metrics.ts";
import { metadataCarrier, REQUEST_ID_KEY, CLIENT_IP_KEY } from "./grpcMetadata.ts";
import { MAX_GRPC_MESSAGE_BYTES } from "./grpcClient.ts";

interface MethodDefinition<Req, Res> {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize(bytes: Buffer): Req;
  responseSerialize(value: Res): Buffer;
}

/** A service implementation as plain async functions, typed by the generated definition. */
export type Implementation<D> = {
  [K in keyof D]: D[K] extends MethodDefinition<infer Req, infer Res>
    ? (req: Req, ctx: CallContext) => Promise<Res>
    : never;
};

export interface ServiceBinding {
  definition: Record<string, MethodDefinition<unknown, unknown>>;
  implementation: Record<string, (req: unknown, ctx: CallContext) => Promise<unknown>>;
  /** By method: the services whose own calls it serves (it then serves no caller). */
  serviceCalls: Readonly<Record<string, readonly string[]>>;
}

/**
 * `serviceCalls` names, per method, the processes that may call it on their own behalf (each
 * must be a registry caller of the service); such a method serves them only. Every other
 * method serves only callers whose principal the gateway signed.
 */
export function bindService<D extends Record<string, MethodDefinition<unknown, never>>>(
  definition: D,
  implementation: Implementation<D>,
  serviceCalls: { readonly [K in keyof D]?: readonly string[] } = {},
): ServiceBinding {
  return { definition, implementation, serviceCalls } as unknown as ServiceBinding;
}

export interface GrpcServerOptions {
  host?: string;
  port: number;
  /** HTTP port for Kubernetes probes; 0 picks a free one, undefined disables it. */
  probePort?: number | undefined;
  services: ServiceBinding[];
  /** The public keys calls are verified with (callCredentials.ts). */
  trust: CallTrust;
  logger: Logger;
  /** Readiness beyond "the server is listening", e.g. the database answers. */
  ready?: () => Promise<boolean>;
}

export interface RunningGrpcServer {
  port: number;
  probePort: number | undefined;
  shutdown(graceMs?: number): Promise<void>;
}

// Looked up per call: a tracer taken before initTelemetry would stay a no-op.
const tracer = () => trace.getTracer("argus.grpc");

/** The incoming call's deadline; undefined when the caller set none. */
function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown>): Date | undefined {
  const d = call.getDeadline();
  const ms = d instanceof Date ? d.getTime() : d;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

// setTimeout fires at once for delays beyond this (~24.8 days): such deadlines never expire.
const MAX_TIMER_MS = 2 ** 31 - 1;

// Node timers may fire a millisecond early.
const expired = (deadline: Date) => Date.now() + 2 >= deadline.getTime();
const timedOut = () => new DomainError("gateway-timeout", "the call's deadline passed");
const cancelled = () => new DomainError("service-unavailable", "the caller cancelled the call");
const AFTER_ANSWER = new DomainError("service-unavailable", "the call was answered");

function expireAt(deadline: Date, abort: AbortController): NodeJS.Timeout | undefined {
  const ms = Math.max(0, deadline.getTime() - Date.now());
  if (ms > MAX_TIMER_MS) return undefined;
  return setTimeout(() => abort.abort(timedOut()), ms);
}

function wrapUnary(
  method: MethodDefinition<unknown, unknown>,
  handler: (req: unknown, ctx: CallContext) => Promise<unknown>,
  services: readonly string[] | undefined,
  verifier: CallVerifier,
  opts: GrpcServerOptions,
): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const parent = extractContext(metadataCarrier(call.metadata));
    const rpc = method.path.slice(1);
    const span = tracer().startSpan(
      rpc,
      { kind: SpanKind.SERVER, attributes: { "rpc.system": "grpc", "rpc.method": rpc } },
      parent,
    );
    const requestId = String(call.metadata.get(REQUEST_ID_KEY)[0] ?? "");
    const logger = opts.logger.child({ request_id: requestId, rpc });
    const deadline = deadlineOf(call);
    const abort = new AbortController();
    // grpc-js also reports a passed deadline as "cancelled"; its timer may beat ours. It
    // reports calls it has already answered too: those share one reason, since a new error
    // (and its stack) per call showed in the profile.
    let answered = false;
    call.on("cancelled", () =>
      abort.abort(
        answered ? AFTER_ANSWER : deadline && expired(deadline) ? timedOut() : cancelled(),
      ),
    );
    const expiry = deadline && expireAt(deadline, abort);
    const started = performance.now();
    let code: grpc.status = grpc.status.OK;
    // Answered through the callback; the body catches every error, so nothing is left to await.
    void context.with(trace.setSpan(parent, span), async () => {
      try {
        const verified = verifier.verify(call.metadata, method.path, services);
        const ctx: CallContext = {
          ...(verified.kind === "caller"
            ? { principal: verified.principal, caller: verified.caller }
            : { principal: NOBODY, service: verified.service }),
          requestId,
          clientIp: String(call.metadata.get(CLIENT_IP_KEY)[0] ?? ""),
          logger,
          deadline,
          signal: abort.signal,
        };
        abort.signal.throwIfAborted();
        callback(null, await runInCall(ctx, () => handler(call.request, ctx)));
      } catch (err) {
        if (!(err instanceof DomainError)) {
          logger.error("unhandled error in rpc", {
            error: err instanceof Error ? (err.stack ?? err.message) : String(err),
          });
          span.recordException(err as Error);
        }
        span.setStatus({ code: SpanStatusCode.ERROR });
        const wire = toGrpcError(err);
        code = wire.code;
        callback(wire);
      } finally {
        answered = true;
        clearTimeout(expiry);
        span.end();
        recordDuration("rpc.server.duration", (performance.now() - started) / 1000, {
          "rpc.method": rpc,
          "rpc.grpc.status_code": code,
        });
      }
    });
  };
}

function listenProbes(
  host: string,
  port: number,
  ready: () => Promise<boolean>,
): Promise<HttpServer> {
  const server = createHttpServer((req, res) => {
    const reply = (code: number) => {
      res
        .writeHead(code, { "content-type": "application/json" })
        .end(JSON.stringify({ status: code === 200 ? "ok" : "unavailable" }));
    };
    if (req.url === "/healthz") return reply(200);
    if (req.url === "/readyz")
      return void ready().then(
        (ok) => reply(ok ? 200 : 503),
        () => reply(503),
      );
    reply(404);
  });
  // A port another process holds is this start's failure, not an unhandled 'error' later.
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

export async function startGrpcServer(opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  // A bounded connection age makes clients re-resolve, so new replicas receive traffic.
  const server = new grpc.Server({
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.max_connection_age_ms": 300_000,
    "grpc.max_connection_age_grace_ms": 30_000,
    "grpc.enable_channelz": 0,
    "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES,
    "grpc.max_send_message_length": MAX_GRPC_MESSAGE_BYTES,
  });
  const health = new HealthImplementation({ "": "NOT_SERVING" });
  health.addToServer(server);
  const names: string[] = [];
  const verifier = callVerifier(opts.trust);
  for (const svc of opts.services) {
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const name of Object.keys(svc.serviceCalls))
      if (!svc.definition[name]) throw new Error(`serviceCalls names no method ${name}`);
    for (const [name, method] of Object.entries(svc.definition)) {
      const impl = svc.implementation[name];
      if (!impl) throw new Error(`no implementation for ${method.path}`);
      const services = Object.hasOwn(svc.serviceCalls, name) ? svc.serviceCalls[name] : undefined;
      handlers[name] = wrapUnary(method, impl, services, verifier, opts);
    }
    server.addService(svc.definition as unknown as grpc.ServiceDefinition, handlers);
    const first = Object.values(svc.definition)[0];
    if (first) names.push(first.path.split("/")[1]!);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${opts.host ?? "0.0.0.0"}:${opts.port}`,
      grpc.ServerCredentials.createInsecure(),
      (err, p) => (err ? reject(err) : resolve(p)),
    ),
  );
  for (const n of ["", ...names]) health.setStatus(n, "SERVING");
  const ready = opts.ready ?? (async () => true);
  const probes =
    opts.probePort === undefined
      ? undefined
      : await listenProbes(opts.host ?? "0.0.0.0", opts.probePort, ready);
  const probeAddress = probes?.address();
  return {
    port,
    probePort: probeAddress && typeof probeAddress === "object" ? probeAddress.port : undefined,
    async shutdown(graceMs = 10_000) {
      for (const n of ["", ...names]) health.setStatus(n, "NOT_SERVING");
      probes?.close();
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
