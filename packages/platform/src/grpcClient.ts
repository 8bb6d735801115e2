import { setTimeout as sleep } from "node:timers/promises";
import * as grpc from "@grpc/grpc-js";
import { UNSIGNED_CALL, type CallCredential } from "./callCredentials.ts";
import type { CallContext } from "./context.ts";
import { isIdempotent } from "./idempotency.ts";
import { fromGrpcError } from "./errors.ts";
import { recordDuration } from "./metrics.ts";
import { legacyMetadata, setRequest } from "./grpcMetadata.ts";
import { attachForwardedKey, type ForwardedKey } from "./requestKeys.ts";
import { telemetryRunning } from "./telemetry.ts";

export interface ClientMethod<Req, Res> {
  path: string;
  requestSerialize(value: Req): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

export interface CallOptions {
  /**
   * Whom the call is for: a caller's signed principal (the gateway's signature, forwarded as
   * received by `onwardCall`) or the calling process itself (`serviceCredential`).
   */
  credential: CallCredential;
  requestId: string;
  clientIp?: string;
  /** When the call, retries included, must be over. Default: `deadlineMs` from now. */
  deadline?: Date | undefined;
  /** Budget from now when no `deadline` is given. Default: 5 s. */
  deadlineMs?: number;
  /** Aborting cancels the attempt in flight; no retry starts after it. */
  signal?: AbortSignal | undefined;
  /**
   * Explicit override of the method's `idempotency_level` in proto/, which alone decides
   * retries otherwise (STYLE §9). Leave unset; kept for call sites that predate the proto.
   */
  idempotent?: boolean;
  /**
   * The caller's Idempotency-Key (the gateway's, or the incoming call's on an onward call):
   * the service that applies the request records it with its effect.
   */
  forwardedKey?: ForwardedKey | undefined;
}

export const DEFAULT_DEADLINE_MS = 5_000;

/** Taken off an onward call's deadline: the caller keeps a moment to answer after it. */
const ONWARD_MARGIN_MS = 20;

/**
 * Options for a call a handler makes to another service on behalf of its caller: the caller's
 * principal exactly as the gateway signed it (a service cannot alter it), the same request id
 * and client IP, the REMAINING time of the incoming call (not a fresh budget), and cancelled
 * when the incoming call is.
 */
export function onwardCall(ctx: CallContext): CallOptions {
  if (!ctx.caller)
    throw new Error(`no caller to act for: ${ctx.service ?? "this call"} called on its own behalf`);
  const key = ctx.requestKey;
  return {
    ...sameCall(ctx),
    credential: ctx.caller,
    // A request applied through several services is remembered by each of them.
    ...(key ? { forwardedKey: { key: key.key, fingerprint: key.fingerprint } } : {}),
  };
}

/**
 * Options for a call a handler makes on its own behalf (e.g. the catalog resolving annotators'
 * e-mails): `self` is the service's own credential, served only by RPCs that name it; the
 * request id, client IP, remaining time and cancellation are the incoming call's.
 */
export function ownCall(ctx: CallContext, self: CallCredential): CallOptions {
  return { ...sameCall(ctx), credential: self };
}

function sameCall(ctx: CallContext): Omit<CallOptions, "credential"> {
  return {
    requestId: ctx.requestId,
    clientIp: ctx.clientIp,
    deadline: ctx.deadline && new Date(ctx.deadline.getTime() - ONWARD_MARGIN_MS),
    signal: ctx.signal,
  };
}

/**
 * The largest gRPC message either side takes (grpc-js's default is 4 MiB): dataset writes carry
 * request bodies of up to 8 MiB (the official SDK's REST limit) as JSON text, plus framing.
 */
export const MAX_GRPC_MESSAGE_BYTES = 24 * 1024 * 1024;

/**
 * How often a channel pings a connection it has had no word from: a peer gone without a FIN
 * (a pod's address removed under it) is found within this and the ping's 20 s timeout.
 */
const KEEPALIVE_TIME_MS = 30_000;

/** One long-lived channel per target service, shared by every request. */
export function createChannel(
  address: string,
  opts: { keepaliveTimeMs?: number } = {},
): grpc.Client {
  return new grpc.Client(address, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES,
    "grpc.max_send_message_length": MAX_GRPC_MESSAGE_BYTES,
    "grpc.keepalive_time_ms": opts.keepaliveTimeMs ?? KEEPALIVE_TIME_MS,
    "grpc.keepalive_permit_without_calls": 1,
    // A restarted service is found again within ~100 ms instead of the default 1 s backoff.
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 2_000,
    // Channelz (grpc-js's introspection service, which Argus does not serve) counts every call.
    "grpc.enable_channelz": 0,
    // A dns:/// name is looked up again when a replica it gave goes away; grpc-js waits 30 s
    // between two lookups by default, so a pod that replaced one within 30 s of the last
    // lookup (a second rollout, a crash) went unseen that long, the old address failing calls.
    "grpc.dns_min_time_between_resolutions_ms": 1_000,
    // With a dns:/// target every replica behind the name gets calls, not just the first.
    "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
}

const RETRYABLE = new Set([grpc.status.UNAVAILABLE]);

/** The error grpc-js gives a call cancelled in flight, for one cancelled before it started. */
function cancelledOnClient(): grpc.ServiceError {
  return Object.assign(new Error("1 CANCELLED: Cancelled on client"), {
    code: grpc.status.CANCELLED,
    details: "Cancelled on client",
    metadata: new grpc.Metadata(),
  });
}

function once<Req, Res>(
  client: grpc.Client,
  method: ClientMethod<Req, Res>,
  req: Req,
  opts: CallOptions,
  deadline: Date,
): Promise<Res> {
  const md = new grpc.Metadata();
  opts.credential.attach(md, method.path);
  setRequest(md, opts.requestId, opts.clientIp);
  if (opts.forwardedKey) attachForwardedKey(md, opts.forwardedKey);
  const call = telemetryRunning() ? viaClient : viaChannel;
  const attempt = (metadata: grpc.Metadata) =>
    new Promise<Res>((resolve, reject) => {
      const settle = (err: grpc.ServiceError | null, res?: Res) => {
        opts.signal?.removeEventListener("abort", cancel);
        if (err) reject(err);
        else resolve(res as Res);
      };
      const cancel = call({ client, method, req, md: metadata, deadline, settle });
      opts.signal?.addEventListener("abort", cancel, { once: true });
    });
  // A process of the version before 2026-12-04 (a rolling upgrade runs both) finds no
  // credential it knows and refuses before it runs anything: sent once more as it reads them.
  return attempt(md).catch((err: grpc.ServiceError) => {
    if (err.code !== grpc.status.UNAUTHENTICATED || err.details !== UNSIGNED_CALL) throw err;
    return attempt(legacyMetadata(md));
  });
}

/** One call to start, and where its end goes. */
interface CallStart<Req, Res> {
  client: grpc.Client;
  method: ClientMethod<Req, Res>;
  req: Req;
  md: grpc.Metadata;
  deadline: Date;
  settle: (err: grpc.ServiceError | null, res?: Res) => void;
}

/**
 * Through grpc-js's Client, which the SDK's gRPC instrumentation patches (the call's CLIENT
 * span, the trace in the metadata). Returns the call's cancel, as `viaChannel` does.
 */
function viaClient<Req, Res>(c: CallStart<Req, Res>): () => void {
  const { client, method, req, md, deadline, settle } = c;
  // grpc-js captures the caller's stack on every call, for the error of one that fails; from
  // inside async functions V8 walks the whole awaiting chain for it: three quarters of
  // makeUnaryRequest's own time on the gateway (4.5% of its CPU on a GET, 1.1% without). A
  // failure is mapped to what it stands for (fromGrpcError) and keeps its status and details.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const call = client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      req,
      md,
      { deadline },
      settle,
    );
    return () => call.cancel();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/**
 * Straight onto the client's channel, when no SDK runs (nothing to record or propagate): the
 * same call without the Client's layers (an event emitter per call, interceptor wrappers,
 * argument checks). Starting a call went from 6.2% to 3.9% of the gateway's CPU on a GET. The
 * answers are grpc-js's own: its statuses, and its details for a response that is missing,
 * repeated or unreadable, or a request that cannot be serialized.
 */
function viaChannel<Req, Res>(c: CallStart<Req, Res>): () => void {
  const { client, method, req, md, deadline, settle } = c;
  const call = client.getChannel().createCall(method.path, deadline, undefined, null, undefined);
  let received: { value: Res } | undefined;
  let failure: grpc.StatusObject | undefined;
  const fail = (code: grpc.status, details: string) => {
    failure = { code, details, metadata: new grpc.Metadata() };
    call.cancelWithStatus(code, details);
  };
  call.start(md, {
    onReceiveMetadata: () => undefined,
    onReceiveMessage: (bytes: Buffer) => {
      if (received) return fail(grpc.status.UNIMPLEMENTED, "Too many responses received");
      try {
        received = { value: method.responseDeserialize(bytes) };
      } catch (err) {
        fail(grpc.status.INTERNAL, `Response message parsing error: ${(err as Error).message}`);
      }
    },
    onReceiveStatus: (status: grpc.StatusObject) => {
      const final = failure ?? status;
      if (final.code !== grpc.status.OK) settle(statusError(final));
      else if (!received)
        settle(
          statusError({
            ...final,
            code: grpc.status.UNIMPLEMENTED,
            details: "No message received",
          }),
        );
      else settle(null, received.value);
    },
  });
  let bytes: Buffer;
  try {
    bytes = method.requestSerialize(req);
  } catch (err) {
    fail(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error).message}`);
    return () => undefined;
  }
  call.sendMessageWithContext({}, bytes);
  call.halfClose();
  call.startRead();
  return () => call.cancelWithStatus(grpc.status.CANCELLED, "Cancelled on client");
}

/** The error grpc-js gives for a status: "<code> <NAME>: <details>", with the status on it. */
function statusError(status: grpc.StatusObject): grpc.ServiceError {
  const message = `${status.code} ${grpc.status[status.code]}: ${status.details}`;
  return Object.assign(new Error(message), status);
}

/**
 * One unary call under one deadline. Methods declared NO_SIDE_EFFECTS or IDEMPOTENT in
 * proto/ are retried on UNAVAILABLE with backoff, never past the deadline. Each attempt is a
 * CLIENT span of the gRPC instrumentation, which also carries the trace in the metadata.
 */
export async function callUnary<Req, Res>(
  client: grpc.Client,
  method: ClientMethod<Req, Res>,
  req: Req,
  opts: CallOptions,
): Promise<Res> {
  const rpc = method.path.slice(1);
  const deadline = opts.deadline ?? new Date(Date.now() + (opts.deadlineMs ?? DEFAULT_DEADLINE_MS));
  const retried = opts.idempotent ?? isIdempotent(method.path);
  const started = performance.now();
  let code: grpc.status = grpc.status.OK;
  try {
    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw cancelledOnClient();
      try {
        return await once(client, method, req, opts, deadline);
      } catch (err) {
        // 0.1 + 0.2 + 0.4 + 0.8 + 1.6 s: enough to ride out a restarting service.
        const backoff = 100 * 2 ** attempt;
        const code = (err as grpc.ServiceError).code;
        if (!retried || attempt >= 5 || !RETRYABLE.has(code)) throw err;
        if (Date.now() + backoff >= deadline.getTime()) throw err;
        await sleep(backoff, undefined, { signal: opts.signal }).catch(() => undefined);
      }
    }
  } catch (err) {
    code = (err as grpc.ServiceError).code ?? grpc.status.UNKNOWN;
    throw err;
  } finally {
    recordDuration("rpc.client.duration", (performance.now() - started) / 1000, {
      "rpc.method": rpc,
      "rpc.grpc.status_code": code,
    });
  }
}

/**
 * `callUnary` to another Argus service, a failure as the DomainError it stands for
 * (`fromGrpcError`): what the peer refused, its caller is refused the same way.
 */
export async function callPeer<Req, Res>(
  client: grpc.Client,
  method: ClientMethod<Req, Res>,
  req: Req,
  opts: CallOptions,
): Promise<Res> {
  try {
    return await callUnary(client, method, req, opts);
  } catch (err) {
    throw fromGrpcError(err);
  }
}

/** `callPeer` for a lookup: undefined where the peer answers NOT_FOUND. */
export async function findOnPeer<Req, Res>(
  client: grpc.Client,
  method: ClientMethod<Req, Res>,
  req: Req,
  opts: CallOptions,
): Promise<Res | undefined> {
  try {
    return await callUnary(client, method, req, opts);
  } catch (err) {
    if ((err as Partial<grpc.ServiceError>).code === grpc.status.NOT_FOUND) return undefined;
    throw fromGrpcError(err);
  }
}
