import type { Request } from "express";
import { DomainError, type Principal } from "@argus/platform";
import type { Authenticator } from "./http.ts";
import type { RequestContext } from "./requestContext.ts";

// Any printable ASCII secret (operators choose the initial key freely), bounded so an absurd
// header never reaches identity. Keys Argus generates are a subset of RFC 6750's b64token.
const BEARER = /^Bearer +([\x21-\x7E](?:[\x20-\x7E]{0,510}[\x21-\x7E])?) *$/i;

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
