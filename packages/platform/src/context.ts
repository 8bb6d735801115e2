import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "@argus/proto/common/v1";
import type { SignedCaller } from "./callCredentials.ts";
import type { Logger } from "./logger.ts";
import type { RequestKey } from "./requestKeys.ts";

/** What a service handler knows about the call it serves. */
export interface CallContext {
  /** The caller; NOBODY (no rights) when a service calls on its own behalf. */
  principal: Principal;
  /** The caller's principal as the gateway signed it: what onward calls forward, unchanged. */
  caller?: SignedCaller | undefined;
  /** The service calling on its own behalf, on the RPCs that serve it (`bindService`). */
  service?: string | undefined;
  requestId: string;
  /** Client IP as seen by the gateway, for audit records. */
  clientIp: string;
  logger: Logger;
  /** When the caller stops waiting; onward calls get what remains (`onwardCall`). */
  deadline: Date | undefined;
  /** Aborted when the caller cancels or the deadline passes: start no new work after it. */
  signal: AbortSignal;
  /**
   * The request's Idempotency-Key as the gateway forwarded it, scoped to the caller: the
   * command handler records it with the command's events, so a second execution of the same
   * request applies nothing twice (docs/architecture.md, "Safe retries").
   */
  requestKey?: RequestKey | undefined;
}

/** Event metadata every mutation records (ARCHITECTURE §5: actor, request id, trace). */
export function actorMetadata(ctx: CallContext): Record<string, string> {
  const p = ctx.principal;
  return {
    account_id: p.accountId,
    actor_user_id: p.userId,
    actor_service_account_id: p.serviceAccountId,
    api_key_id: p.apiKeyId,
    request_id: ctx.requestId,
    client_ip: ctx.clientIp,
  };
}

const calls = new AsyncLocalStorage<CallContext>();

/** Runs a handler with its call as the current one (the gRPC server does this per call). */
export const runInCall = <T>(ctx: CallContext, fn: () => Promise<T>): Promise<T> =>
  calls.run(ctx, fn);

/**
 * The signal of the call being served, if any: work started deep inside a handler (a command's
 * transaction) stops when the caller is gone, without each handler passing it along.
 */
export const currentCallSignal = (): AbortSignal | undefined => calls.getStore()?.signal;

/** The request key of the call being served, if it carries one (for the command handler). */
export const currentRequestKey = (): RequestKey | undefined => calls.getStore()?.requestKey;
