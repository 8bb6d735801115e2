import type { Principal } from "@argus/proto/common/v1";
import type { Logger } from "./logger.ts";

/** What a service handler knows about the call it serves. */
export interface CallContext {
  principal: Principal;
  requestId: string;
  /** Client IP as seen by the gateway, for audit records. */
  clientIp: string;
  logger: Logger;
  signal: AbortSignal;
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
