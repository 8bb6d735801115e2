import type { Client } from "@grpc/grpc-js";
import {
  DEFAULT_DEADLINE_MS,
  callUnary,
  createChannel,
  type CallCredential,
  type ClientMethod,
  type PrincipalSigner,
} from "@argus/platform";
import type { ForwardedKey, Principal } from "@argus/platform";

/** Who a call to a backing service is made for: the caller's principal and request. */
export interface Caller {
  principal: Principal;
  requestId: string;
  clientIp: string;
  /**
   * The request's Idempotency-Key and fingerprint, on operations that declare the header:
   * forwarded on every call the request makes, so the service that applies it records it.
   */
  forwardedKey?: ForwardedKey | undefined;
}

/** What the gateway signs with: callers' principals, and its own calls (Authenticate). */
export interface GatewaySigning {
  callers: PrincipalSigner;
  self: CallCredential;
}

/** What one call may change of the backend's defaults. */
export interface CallOverrides {
  /**
   * This call's budget instead of the backend's `deadlineMs`: for the few RPCs whose work is
   * bounded by something slower than a service answering, e.g. a test delivery that waits on
   * a customer's endpoint for up to the webhook's timeout.
   */
  deadlineMs?: number;
}

/**
 * A backing service as the gateway sees it: typed unary calls that carry the caller along,
 * signed with the gateway's key. Each call gets the first deadline of its chain; whether it is
 * retried is the method's `idempotency_level` in proto/.
 */
export interface Backend {
  readonly channel: Client;
  /** The budget of one call, retries included (ARGUS_GRPC_DEADLINE_MS). */
  readonly deadlineMs: number;
  call<Req, Res>(
    method: ClientMethod<Req, Res>,
    request: Req,
    from: Caller,
    overrides?: CallOverrides,
  ): Promise<Res>;
  close(): void;
}

export function createBackend(
  address: string,
  signing: Pick<GatewaySigning, "callers">,
  deadlineMs = DEFAULT_DEADLINE_MS,
): Backend {
  const channel: Client = createChannel(address);
  return {
    channel,
    deadlineMs,
    call: (method, request, from, overrides) =>
      callUnary(channel, method, request, {
        // One signature serves every call of the request (and is reused for a few seconds).
        credential: signing.callers.sign(from.principal),
        requestId: from.requestId,
        clientIp: from.clientIp,
        deadlineMs: overrides?.deadlineMs ?? deadlineMs,
        forwardedKey: from.forwardedKey,
      }),
    close: () => channel.close(),
  };
}
