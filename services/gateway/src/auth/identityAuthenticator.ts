import { DomainError, callUnary, type CallCredential } from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import type { AuthenticationMeta } from "./authenticate.ts";
import type { Authenticated } from "./principalCache.ts";

/**
 * identity.Authenticate: the principal of a raw key and when the key stops authenticating.
 * The principal cache (principalCaching.ts) decides when it is asked (ARCHITECTURE §8).
 */
export function identityAuthentication(
  identity: Backend,
  gateway: CallCredential,
): (rawKey: string, meta: AuthenticationMeta) => Promise<Authenticated> {
  return async (rawKey, meta) => {
    const res = await callUnary(
      identity.channel,
      IdentityServiceService.authenticate,
      { apiKey: rawKey },
      {
        // No caller yet: the gateway asks as itself.
        credential: gateway,
        requestId: meta.requestId,
        clientIp: meta.clientIp,
        deadlineMs: identity.deadlineMs,
      },
    );
    if (!res.principal)
      throw new DomainError("authentication-required", "missing or invalid API key");
    return { principal: res.principal, keyExpiresAtMs: Number(res.keyExpiresAtMs) };
  };
}

/** identity.RenewGatewayLease, as the gateway itself (`release`: end the lease now). */
export function identityLeaseRenewal(
  identity: Backend,
  gateway: CallCredential,
): (
  req: { gatewayId: string; release: boolean },
  deadlineMs: number,
) => Promise<{ epoch: number; leaseMs: number }> {
  return async (req, deadlineMs) => {
    const res = await callUnary(identity.channel, IdentityServiceService.renewGatewayLease, req, {
      credential: gateway,
      requestId: `lease-${req.gatewayId}`,
      deadlineMs,
    });
    return { epoch: Number(res.epoch), leaseMs: Number(res.leaseMs) };
  };
}
