import { createHmac, timingSafeEqual } from "node:crypto";
import type { Metadata } from "@grpc/grpc-js";
import { Principal, SignedPrincipal, type PermissionSet } from "@argus/proto/common/v1";
import { DomainError } from "./errors.ts";

export { Principal };

const PRINCIPAL_KEY = "argus-principal-bin";
const SIGNATURE_KEY = "argus-principal-sig";

function sign(bytes: Uint8Array, secret: string): Buffer {
  return createHmac("sha256", secret).update(bytes).digest();
}

/**
 * Space permissions repeat the same few role sets across many spaces: on the wire each
 * distinct set travels once and spaces point at it (a full map outgrows HTTP/2 headers).
 */
function compact(p: Principal): SignedPrincipal {
  const sets: PermissionSet[] = [];
  const seen = new Map<string, number>();
  const bySpace: Record<string, number> = {};
  for (const [space, set] of Object.entries(p.spacePermissions)) {
    const key = set.permissions.join(",");
    let i = seen.get(key);
    if (i === undefined) {
      i = sets.push(set) - 1;
      seen.set(key, i);
    }
    bySpace[space] = i;
  }
  return {
    principal: { ...p, spacePermissions: {} },
    permissionSets: sets,
    spacePermissionSets: bySpace,
  };
}

function expand(s: SignedPrincipal): Principal {
  const p = s.principal ?? Principal.decode(new Uint8Array());
  const spacePermissions: Record<string, PermissionSet> = { ...p.spacePermissions };
  for (const [space, i] of Object.entries(s.spacePermissionSets))
    spacePermissions[space] = s.permissionSets[i] ?? { permissions: [] };
  return { ...p, spacePermissions };
}

/** The gateway's half: puts the principal and its HMAC into outgoing call metadata. */
export function attachPrincipal(
  metadata: Metadata,
  principal: Principal,
  secret: string,
  now = Date.now(),
): void {
  const bytes = SignedPrincipal.encode(compact({ ...principal, issuedAtMs: BigInt(now) })).finish();
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
  const principal = expand(SignedPrincipal.decode(bytes));
  const age = now - Number(principal.issuedAtMs);
  if (age > maxAgeMs || age < -maxAgeMs)
    throw new DomainError("authentication-required", "principal expired");
  return principal;
}

/** The principal the gateway signs for its own calls made before a caller is known (Authenticate). */
// Decoding no bytes yields every field at its default: nobody, with no rights.
export const GATEWAY_PRINCIPAL: Principal = Principal.decode(new Uint8Array());
