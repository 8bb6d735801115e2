import { DomainError, GATEWAY_PRINCIPAL, callUnary } from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import type { Backend } from "./backend.ts";
import type { Authenticator } from "./http.ts";

/** Asks identity on every request, so a revoked key fails on the very next call (ARCHITECTURE §8). */
export function identityAuthenticator(identity: Backend, principalSecret: string): Authenticator {
  return {
    async authenticate(rawKey, meta) {
      const res = await callUnary(
        identity.channel,
        IdentityServiceService.authenticate,
        { apiKey: rawKey },
        {
          principal: GATEWAY_PRINCIPAL,
          principalSecret,
          requestId: meta.requestId,
          clientIp: meta.clientIp,
          deadlineMs: identity.deadlineMs,
        },
      );
      if (!res.principal)
        throw new DomainError("authentication-required", "missing or invalid API key");
      return res.principal;
    },
  };
}
