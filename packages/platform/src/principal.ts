import { createHmac, timingSafeEqual } from "node:crypto";
import type { Metadata } from "@grpc/grpc-js";
import { Principal } from "@argus/proto/common/v1";
import { DomainError } from "./errors.ts";

export { Principal };

const PRINCIPAL_KEY = "argus-principal-bin";
const SIGNATURE_KEY = "argus-principal-sig";

function sign(bytes: Uint8Array, secret: string): Buffer {
  return createHmac("sha256", secret).update(bytes).digest();
}

/** The gateway's half: puts the principal and its HMAC into outgoing call metadata. */
export function attachPrincipal(
  metadata: Metadata,
  principal: Principal,
  secret: string,
  now = Date.now(),
): void {
  const bytes = Principal.encode({ ...principal, issuedAtMs: BigInt(now) }).finish();
  metadata.set(PRINCIPAL_KEY, Buffer.from(bytes));
  metadata.set(SIGNATURE_KEY, sign(bytes, secret).toString("base64"));
}

/**
 * A service's half: the principal only if its signature is ours and it is fresh; a service
 * never acts for an unsigned or tampered caller.
 */
export function verifyPrincipal(
  metadata: Metadata,
  secret: string,
  maxAgeMs: number,
  now = Date.now(),
): Principal {
  const [bytes] = metadata.get(PRINCIPAL_KEY);
  const [sig] = metadata.get(SIGNATURE_KEY);
  if (!Buffer.isBuffer(bytes) || typeof sig !== "string") {
    throw new DomainError("authentication-required", "unsigned call");
  }
  const expected = sign(bytes, secret);
  const given = Buffer.from(sig, "base64");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new DomainError("authentication-required", "principal signature mismatch");
  }
  const principal = Principal.decode(bytes);
  const age = now - Number(principal.issuedAtMs);
  if (age > maxAgeMs || age < -maxAgeMs)
    throw new DomainError("authentication-required", "principal expired");
  return principal;
}

/** The principal the gateway signs for its own calls made before a caller is known (Authenticate). */
// Decoding no bytes yields every field at its default: nobody, with no rights.
export const GATEWAY_PRINCIPAL: Principal = Principal.decode(new Uint8Array());
