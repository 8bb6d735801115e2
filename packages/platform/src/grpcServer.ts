import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { trace } from "@opentelemetry/api";
import { callVerifier, type CallTrust, type CallVerifier } from "./callCredentials.ts";
import { runInCall, type CallContext } from "./context.ts";
import { DomainError, describeError, isDependencyUnavailable, toGrpcError } from "./errors.ts";
import type { Logger } from "./logger.ts";
import { NOBODY } from "./principal.ts";
import { recordDuration } from "./metrics.ts";
import { requestOf } from "./grpcMetadata.ts";
import { MAX_GRPC_MESSAGE_BYTES } from "./grpcClient.ts";
import {
  RequestAlreadyApplied,
  answerLost,
  forwardedKeyOf,
  idempotencyScope,
  keyReused,
  type RequestKey,
} from "./requestKeys.ts";

interface MethodDefinition<Req, Res> {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize(bytes: Buffer): Req;
  responseSerialize(value: Res): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

/** A client-streaming method: its requests as they arrive (ending with the caller's half-close). */
type ClientStreamHandler<Req, Res> = (
  requests: AsyncIterable<Req>,
  ctx: CallContext,
) => Promise<Res>;

/**
 * A server-streaming method: the answers it yields are written one at a time, each after the
 * caller took the previous one, so a slow reader slows the handler instead of filling memory.
 */
type ServerStreamHandler<Req, Res> = (req: Req, ctx: CallContext) => AsyncIterable<Res>;

/** A service implementation as plain async functions, typed by the generated definition. */
export type Implementation<D> = {
  [K in keyof D]: D[K] extends MethodDefinition<infer Req, infer Res>
    ? D[K] extends { requestStream: true; responseStream: false }
      ? ClientStreamHandler<Req, Res>
      : D[K] extends { requestStream: false; responseStream: true }
        ? ServerStreamHandler<Req, Res>
        : (req: Req, ctx: CallContext) => Promise<Res>
    : never;
};

type AnyHandler = (req: unknown, ctx: CallContext) => unknown;

export interface ServiceBinding {
  definition: Record<string, MethodDefinition<unknown, unknown>>;
  implementation: Record<string, AnyHandler>;
  /** By method: the services whose own calls it serves (it then serves no caller). */
  serviceCalls: Readonly<Record<string, readonly string[]>>;
}

/** Any method of a generated definition (responses are serialized in, deserialized out). */
type AnyMethod = Omit<MethodDefinition<unknown, never>, "responseDeserialize"> & {
  responseDeserialize(bytes: Buffer): unknown;
};

/**
 * `serviceCalls` names, per method, the processes that may call it on their own behalf (each
 * must be a registry caller of the service); such a method serves them only. Every other
 * method serves only callers whose principal the gateway signed.
 */
export function bindService<D extends Record<string, AnyMethod>>(
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
  /**
   * Where the answers to requests sent with an Idempotency-Key are kept (the service's
   * `applied_requests`); absent: keys are ignored, as by a service with no commands.
   */
  replies?: RequestReplies;
  /** How long a client's connection serves new calls; default `MAX_CONNECTION_AGE_MS`. */
  maxConnectionAgeMs?: number;
}

/**
 * A client's connection takes no new calls after this (grpc-js adds ±10%): it connects again
 * and looks the name up again, so a replica an autoscaler added gets calls within it, with a
 * Service address (a connection is pinned to the pod it reached) as with a headless name.
 */
const MAX_CONNECTION_AGE_MS = 30_000;

/** What a service recorded for a request key (service-host keeps it in Postgres). */
export interface RecordedRequest {
  fingerprint: string;
  /** The RPC's answer, serialized; null from the commit of its effect until it is stored. */
  reply: Buffer | null;
}

/**
 * The answers of requests applied under a request key: a re-forwarded request (its first
 * answer was lost on the way back) is answered with the first one instead of running again.
 */
export interface RequestReplies {
  /** What is recorded for the key and method, unless it expired; undefined when nothing is. */
  find(key: RequestKey): Promise<RecordedRequest | undefined>;
  store(key: RequestKey, reply: Buffer): Promise<void>;
}

export interface RunningGrpcServer {
  port: number;
  probePort: number | undefined;
  shutdown(graceMs?: number): Promise<void>;
}

/** The incoming call's deadline; undefined when the caller set none. */
function deadlineOf(call: { getDeadline(): grpc.Deadline }): Date | undefined {
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

// How long a request that met its own key, just committed by a concurrent execution, waits
// for that execution's answer to be stored before it is told the answer was lost.
const STORED_REPLY_WAIT_MS = 1_000;
const STORED_REPLY_POLL_MS = 25;

/** The answer recorded for `key`, decoded; undefined when the request was never applied. */
async function recordedAnswer(
  key: RequestKey,
  replies: RequestReplies,
  method: MethodDefinition<unknown, unknown>,
): Promise<{ value: unknown } | "pending" | undefined> {
  const found = await replies.find(key);
  if (!found) return undefined;
  if (found.fingerprint !== key.fingerprint) throw keyReused();
  return found.reply ? { value: method.responseDeserialize(found.reply) } : "pending";
}

/**
 * Serves a call that carries a request key exactly once: a request applied before (its answer
 * lost on the way back, the gateway forwarding it again) is answered from what was stored,
 * without running; one whose command meets the key just committed by a concurrent execution
 * waits briefly for that execution's answer. A request applied whose answer was never stored
 * (the process died in between) is a 409 saying so: the caller reads the resource.
 */
async function serveOnce(
  method: MethodDefinition<unknown, unknown>,
  handler: (req: unknown, ctx: CallContext) => Promise<unknown>,
  req: unknown,
  ctx: CallContext,
  replies: RequestReplies,
): Promise<unknown> {
  const key = ctx.requestKey!;
  const earlier = await recordedAnswer(key, replies, method);
  if (earlier === "pending") throw answerLost();
  if (earlier) return earlier.value;
  let res: unknown;
  try {
    res = await handler(req, ctx);
  } catch (err) {
    if (!(err instanceof RequestAlreadyApplied)) throw err;
    const waitUntil = performance.now() + STORED_REPLY_WAIT_MS;
    for (;;) {
      const stored = await recordedAnswer(key, replies, method);
      if (stored && stored !== "pending") return stored.value;
      if (performance.now() >= waitUntil || ctx.signal.aborted) throw answerLost();
      await new Promise((r) => setTimeout(r, STORED_REPLY_POLL_MS));
    }
  }
  // Stored before the answer leaves: a retry after it finds it. Should storing fail, this
  // caller still gets its answer; a retry is then told the answer was lost.
  if (key.recorded && !key.replyWithheld)
    await replies
      .store(key, method.responseSerialize(res))
      .catch((err: Error) =>
        ctx.logger.warn("storing an idempotent answer failed", { error: err.message }),
      );
  return res;
}

function expireAt(deadline: Date, abort: AbortController): NodeJS.Timeout | undefined {
  const ms = Math.max(0, deadline.getTime() - Date.now());
  if (ms > MAX_TIMER_MS) return undefined;
  return setTimeout(() => abort.abort(timedOut()), ms);
}

/** What every kind of call shares: its side of grpc-js, as the wrappers below see it. */
interface IncomingCall {
  metadata: grpc.Metadata;
  getDeadline(): grpc.Deadline;
  on(event: "cancelled", listener: () => void): unknown;
}

/**
 * Serves one call of any kind: its deadline and cancellation, the caller's verification and
 * context, then `body`; an error thrown becomes the gRPC status `fail` sends (a DomainError's
 * own, anything else INTERNAL and logged). Its SERVER span is the gRPC instrumentation's, which
 * continues the caller's trace from the metadata and is the active span while it runs.
 */
function serveCall(
  call: IncomingCall,
  method: MethodDefinition<unknown, unknown>,
  services: readonly string[] | undefined,
  verifier: CallVerifier,
  opts: GrpcServerOptions,
  body: (ctx: CallContext) => Promise<void>,
  fail: (wire: grpc.ServiceError) => void,
): void {
  const rpc = method.path.slice(1);
  const { requestId, clientIp } = requestOf(call.metadata);
  const logger = opts.logger.child({ request_id: requestId, rpc });
  const deadline = deadlineOf(call);
  const abort = new AbortController();
  // grpc-js also reports a passed deadline as "cancelled"; its timer may beat ours. It
  // reports calls it has already answered too: nothing of those is left to stop, and an abort
  // (its event and listeners) per call showed in the profile.
  let answered = false;
  call.on("cancelled", () => {
    if (!answered) abort.abort(deadline && expired(deadline) ? timedOut() : cancelled());
  });
  const expiry = deadline && expireAt(deadline, abort);
  const started = performance.now();
  let code: grpc.status = grpc.status.OK;
  // Answered through `fail` or the body; the body catches every error, so nothing is left to await.
  void (async () => {
    try {
      const verified = verifier.verify(call.metadata, method.path, services);
      // Only a caller's unary request has a key: a service's own call has no caller to scope
      // it to, and a stream's answer is not one message to keep.
      const unary = !method.requestStream && !method.responseStream;
      const forwarded =
        verified.kind === "caller" && unary && opts.replies
          ? forwardedKeyOf(call.metadata)
          : undefined;
      const principal = verified.kind === "caller" ? verified.principal : NOBODY;
      const ctx: CallContext = {
        ...(verified.kind === "caller"
          ? { principal, caller: verified.caller }
          : { principal, service: verified.service }),
        requestId,
        clientIp,
        logger,
        deadline,
        signal: abort.signal,
        requestKey: forwarded && {
          ...forwarded,
          scope: idempotencyScope(principal),
          method: method.path,
          recorded: false,
        },
      };
      abort.signal.throwIfAborted();
      await runInCall(ctx, () => body(ctx));
    } catch (err) {
      if (err instanceof DomainError && err.type !== "internal-error") {
        // An expected answer.
      } else if (isDependencyUnavailable(err)) {
        // Not a bug: the caller gets UNAVAILABLE and may retry.
        logger.warn("dependency unavailable", { error: (err as Error).message });
      } else {
        logger.error("unhandled error in rpc", { error: describeError(err) });
        trace.getActiveSpan()?.recordException(err as Error);
      }
      const wire = toGrpcError(err);
      code = wire.code;
      fail(wire as grpc.ServiceError);
    } finally {
      answered = true;
      clearTimeout(expiry);
      recordDuration("rpc.server.duration", (performance.now() - started) / 1000, {
        "rpc.method": rpc,
        "rpc.grpc.status_code": code,
      });
    }
  })();
}

/**
 * A client stream's requests until the caller's half-close. A cancelled call never ends the
 * stream (grpc-js only marks it), so the iteration fails instead: a cut upload is never taken
 * for a complete one.
 */
async function* requestsOf<Req>(
  stream: grpc.ServerReadableStream<Req, unknown>,
  signal: AbortSignal,
): AsyncGenerator<Req> {
  const aborted = new Promise<never>((_, reject) => {
    const stop = () => reject(signal.reason as Error);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  aborted.catch(() => undefined);
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<Req>;
  try {
    for (;;) {
      const next = await Promise.race([it.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await it.return?.();
  }
}

/** Resolves once `stream` took the message; rejects when the call ends first. */
function written<Res>(
  stream: grpc.ServerWritableStream<unknown, Res>,
  message: Res,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason as Error);
    signal.addEventListener("abort", stop, { once: true });
    stream.write(message, (err?: Error | null) => {
      signal.removeEventListener("abort", stop);
      if (err) reject(err);
      else resolve();
    });
  });
}

function wrapMethod(
  method: MethodDefinition<unknown, unknown>,
  handler: AnyHandler,
  services: readonly string[] | undefined,
  verifier: CallVerifier,
  opts: GrpcServerOptions,
): grpc.UntypedHandleCall {
  const serve = (
    call: IncomingCall,
    body: (ctx: CallContext) => Promise<void>,
    fail: (wire: grpc.ServiceError) => void,
  ) => serveCall(call, method, services, verifier, opts, body, fail);
  if (method.requestStream && !method.responseStream) {
    const clientStream: grpc.handleClientStreamingCall<unknown, unknown> = (call, callback) =>
      serve(
        call,
        async (ctx) =>
          callback(
            null,
            await (handler as ClientStreamHandler<unknown, unknown>)(
              requestsOf(call, ctx.signal),
              ctx,
            ),
          ),
        (wire) => callback(wire),
      );
    return clientStream;
  }
  if (!method.requestStream && method.responseStream) {
    const serverStream: grpc.handleServerStreamingCall<unknown, unknown> = (call) =>
      serve(
        call,
        async (ctx) => {
          const answers = (handler as ServerStreamHandler<unknown, unknown>)(call.request, ctx);
          for await (const answer of answers) await written(call, answer, ctx.signal);
          call.end();
        },
        (wire) => {
          // A call the caller cancelled has no one to tell.
          if (!call.cancelled) call.emit("error", wire);
        },
      );
    return serverStream;
  }
  if (method.requestStream) throw new Error(`bidirectional streams are not served: ${method.path}`);
  const unaryHandler = handler as (req: unknown, ctx: CallContext) => Promise<unknown>;
  const unary: grpc.handleUnaryCall<unknown, unknown> = (call, callback) =>
    serve(
      call,
      async (ctx) => {
        const replies = opts.replies;
        callback(
          null,
          ctx.requestKey && replies
            ? await serveOnce(method, unaryHandler, call.request, ctx, replies)
            : await unaryHandler(call.request, ctx),
        );
      },
      (wire) => callback(wire),
    );
  return unary;
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
  const server = new grpc.Server({
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.max_connection_age_ms": opts.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS,
    // Calls in flight when a connection ages out may finish on it: a bulk stream (a download of
    // a million examples) lasts minutes. New calls go to a new connection at once.
    "grpc.max_connection_age_grace_ms": 3_600_000,
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
      handlers[name] = wrapMethod(method, impl, services, verifier, opts);
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
