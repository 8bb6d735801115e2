import type { Request } from "express";
import { DomainError, type Principal } from "@argus/platform";
import type { Authenticator } from "./http.ts";
import type { RequestContext } from "./requestContext.ts";

// RFC 6750 b64token, bounded so an absurd header never reaches identity.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;

/** `Authorization: Bearer <API key>` → Principal; a missing or malformed header never calls identity. */
export async function authenticate(
  req: Request,
  authenticator: Authenticator,
  ctx: RequestContext,
): Promise<Principal> {
  const header = req.get("authorization");
  const key = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (key === undefined) {
    throw new DomainError(
      "authentication-required",
      header === undefined
        ? "an 'Authorization: Bearer <API key>' header is required"
        : "the Authorization header must be 'Bearer <API key>'",
    );
  }
  return authenticator.authenticate(key, { requestId: ctx.requestId, clientIp: ctx.clientIp });
}
