import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";
import type { Metadata } from "@grpc/grpc-js";
import { Principal } from "@argus/proto/common/v1";
import type { EnvVar } from "./config.ts";
import { DomainError } from "./errors.ts";
import { GATEWAY, callKeysOf, callSigners, keyEnv } from "./registry.ts";

/*
 * Who a gRPC call is for, proven by an Ed25519 signature (docs/architecture.md, "Trust model").
 *
 * - A caller: the principal the gateway authenticated, signed with the gateway's private key,
 *   which no other process holds. Services forward it byte for byte on onward calls, so none
 *   can alter a caller or mint one.
 * - A service acting on its own behalf: its name and the RPC, signed with its own key. It
 *   carries no principal and is served only by the RPCs that name that service.
 *
 * The principal's bytes are opaque here: what is signed is exactly what travels.
 */

/**
 * One metadata entry per credential, its parts joined by dots: `<issue time>.<principal's bytes,
 * base64>.<signature, base64>` for a caller, `<service>.<issue time>.<signature, base64>` for a
 * service. Each entry of a call's metadata is work on both sides of every call (checked, turned
 * into an HTTP/2 header and back, a string each): two grpc-js peers spent 102 µs of CPU on a
 * call with the five entries a caller's call had, 92 with the two it has now (bench/README.md).
 * A signer's entry is the same text for seconds (its signature is reused), so the callee knows
 * one it checked before by its text.
 */
const CALLER = "argus-caller";
const SERVICE = "argus-service-call";

/**
 * The three entries a credential was before (until 2026-12-04): a process of that version
 * reads only these, and one of this version reads both, so that calls cross between the two
 * while a rolling upgrade runs both (`legacyMetadata`). To be removed once no release before
 * 2026-12-04 is upgraded from.
 */
const LEGACY = {
  principalBytes: "argus-principal-bin",
  principalIssuedAt: "argus-principal-issued-at",
  principalSignature: "argus-principal-sig",
  serviceName: "argus-service",
  serviceIssuedAt: "argus-service-issued-at",
  serviceSignature: "argus-service-sig",
} as const;

// Distinct prefixes: a signature over one kind can never be read as the other kind.
const callerPayload = (issuedAt: string, bytes: Uint8Array): Buffer =>
  Buffer.concat([Buffer.from(`argus-principal/v1 ${issuedAt}\n`), bytes]);
const servicePayload = (name: string, path: string, issuedAt: string): Buffer =>
  Buffer.from(`argus-service-call/v1 ${name} ${path} ${issuedAt}`);

/** How long a signature is accepted after (or, for clock skew, before) it was made. */
const DEFAULT_MAX_AGE_MS = 60_000;

/**
 * How long a signer reuses one signature (per principal, per RPC for a service). Well below
 * the callee's max age, so a reused signature is still fresh when the last hop checks it.
 */
const SIGNATURE_REUSE_MS = 5_000;

// ---------------------------------------------------------------------------------------
// Keys

const ED25519 = "ed25519";

function pemLabel(text: string): string | undefined {
  return /^-----BEGIN ([A-Z ]+)-----/.exec(text.trim())?.[1];
}

function requireEd25519(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== ED25519)
    throw new Error(`expected an Ed25519 key, got ${key.asymmetricKeyType ?? "a symmetric key"}`);
  return key;
}

/** An Ed25519 private key: PEM (`PRIVATE KEY`) or base64 of its PKCS#8 DER. */
export function parsePrivateKey(text: string): KeyObject {
  const label = pemLabel(text);
  if (label !== undefined && label !== "PRIVATE KEY")
    throw new Error(`expected a PEM PRIVATE KEY, got ${label}`);
  try {
    return requireEd25519(
      label
        ? createPrivateKey(text.trim())
        : createPrivateKey({
            key: Buffer.from(text.trim(), "base64"),
            format: "der",
            type: "pkcs8",
          }),
    );
  } catch (err) {
    // OpenSSL's reason names the format problem, never the key's bytes.
    throw new Error(`not an Ed25519 private key (${(err as Error).message})`, { cause: err });
  }
}

/**
 * An Ed25519 public key: PEM (`PUBLIC KEY`, or a `CERTIFICATE` wrapping it, which the Helm chart
 * generates) or base64 of its SPKI DER. A private key is refused, though one would yield the
 * public key: it must not sit in a variable that is handed to other processes.
 */
export function parsePublicKey(text: string): KeyObject {
  const label = pemLabel(text);
  if (label !== undefined && label !== "PUBLIC KEY" && label !== "CERTIFICATE")
    throw new Error(`expected a PEM PUBLIC KEY or CERTIFICATE, got ${label}`);
  try {
    return requireEd25519(
      label
        ? createPublicKey(text.trim())
        : createPublicKey({ key: Buffer.from(text.trim(), "base64"), format: "der", type: "spki" }),
    );
  } catch (err) {
    throw new Error(`not an Ed25519 public key (${(err as Error).message})`, { cause: err });
  }
}

export const privateKeyVar = (describe: string): EnvVar<KeyObject> => ({
  describe,
  parse: parsePrivateKey,
});

export const publicKeyVar = (describe: string): EnvVar<KeyObject> => ({
  describe,
  parse: parsePublicKey,
});

export interface CallKeyPair {
  /** Base64 of the PKCS#8 DER. */
  privateKey: string;
  /** Base64 of the SPKI DER. */
  publicKey: string;
}

/** A fresh key pair as the environment takes it. */
export function generateCallKeyPair(): CallKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync(ED25519);
  return {
    privateKey: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    publicKey: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
  };
}

/** A fresh key pair for every process of the registry that signs (`callSigners`). */
export function generateCallKeys(): Record<string, CallKeyPair> {
  return Object.fromEntries(callSigners().map((n) => [n, generateCallKeyPair()]));
}

/**
 * The call-key variables one process gets from a deployment's key pairs: its own private key
 * when it signs, and the public keys it checks signatures with (registry `callKeysOf`).
 */
export function callKeyEnv(
  name: string,
  pairs: Readonly<Record<string, CallKeyPair>>,
): Record<string, string> {
  const pair = (n: string) => {
    const p = pairs[n];
    if (!p) throw new Error(`no call key pair for ${n}`);
    return p;
  };
  const { signs, trusts } = callKeysOf(name);
  return {
    ...(signs ? { [keyEnv(name).privateKey]: pair(name).privateKey } : {}),
    ...Object.fromEntries(trusts.map((n) => [keyEnv(n).publicKey, pair(n).publicKey])),
  };
}

// ---------------------------------------------------------------------------------------
// Outgoing calls

/** What an outgoing call proves about whom it is for, put into its metadata. */
export interface CallCredential {
  attach(metadata: Metadata, path: string): void;
}

/**
 * A caller's principal as the gateway signed it. Services keep the received entry as it is
 * (no re-encoding) and forward it unchanged.
 */
export interface SignedCaller extends CallCredential {
  readonly kind: "caller";
  /** The `argus-caller` entry: issue time (ms since the epoch, decimal), principal, signature. */
  readonly token: string;
}

function signedCaller(token: string): SignedCaller {
  return {
    kind: "caller",
    token,
    attach(md) {
      md.set(CALLER, token);
    },
  };
}

/** The gateway's half: signs the principals it authenticated. */
export interface PrincipalSigner {
  sign(principal: Principal, now?: number): SignedCaller;
}

/**
 * Signs with the gateway's private key. The same principal object (the authenticator's answer,
 * used for every call of a request, or cached across requests) reuses its signature for
 * `reuseMs`: one Ed25519 signature costs ~30 µs and the encoding more for a large principal.
 * Principals are never mutated after authentication, so the object stands for its bytes.
 */
export function principalSigner(
  privateKey: KeyObject,
  reuseMs: number = SIGNATURE_REUSE_MS,
): PrincipalSigner {
  requireEd25519(privateKey);
  const signed = new WeakMap<Principal, { at: number; caller: SignedCaller }>();
  return {
    sign(principal, now = Date.now()) {
      const kept = signed.get(principal);
      if (kept && now - kept.at < reuseMs && now >= kept.at) return kept.caller;
      const bytes = Buffer.from(Principal.encode(principal).finish());
      const issuedAt = String(now);
      const signature = sign(null, callerPayload(issuedAt, bytes), privateKey).toString("base64");
      const caller = signedCaller(`${issuedAt}.${bytes.toString("base64")}.${signature}`);
      signed.set(principal, { at: now, caller });
      return caller;
    },
  };
}

/**
 * A process acting on its own behalf (the gateway authenticating a key, the catalog resolving
 * annotators): its name and the RPC, signed with its own key; one signature per RPC is reused
 * for `reuseMs`.
 */
export function serviceCredential(
  name: string,
  privateKey: KeyObject,
  reuseMs: number = SIGNATURE_REUSE_MS,
): CallCredential {
  requireEd25519(privateKey);
  if (name.includes(".")) throw new Error(`a service name has no dot: ${name}`);
  const byPath = new Map<string, { at: number; token: string }>();
  return {
    attach(md, path) {
      const now = Date.now();
      let kept = byPath.get(path);
      if (!kept || now - kept.at >= reuseMs || now < kept.at) {
        const issuedAt = String(now);
        const signature = sign(null, servicePayload(name, path, issuedAt), privateKey);
        kept = { at: now, token: `${name}.${issuedAt}.${signature.toString("base64")}` };
        byPath.set(path, kept);
      }
      md.set(SERVICE, kept.token);
    },
  };
}

/** The credential of a process that signs nothing: using it is a wiring mistake. */
export function noCredential(name: string): CallCredential {
  return {
    attach() {
      throw new Error(`${name} calls no other service, so it holds no signing key`);
    },
  };
}

// ---------------------------------------------------------------------------------------
// Incoming calls

export interface CallTrust {
  /**
   * Public keys by signer: the gateway's (callers' principals and its own calls) and those of
   * the services that call this one (registry `callersOf`).
   */
  readonly keys: Readonly<Record<string, KeyObject>>;
  readonly maxAgeMs?: number;
}

type VerifiedCall =
  | { kind: "caller"; principal: Principal; caller: SignedCaller }
  | { kind: "service"; service: string };

export interface CallVerifier {
  /**
   * Who the call is for. `services`: the services whose own calls the RPC serves; an RPC that
   * names any serves only them, any other RPC only callers signed by the gateway.
   */
  verify(
    md: Metadata,
    path: string,
    services: readonly string[] | undefined,
    now?: number,
  ): VerifiedCall;
}

const refused = (detail: string) => new DomainError("authentication-required", detail);

/**
 * How a call without a credential the callee knows is refused: by this version and by the one
 * before 2026-12-04, to which the caller then sends it once more as that version reads it
 * (grpcClient.ts).
 */
export const UNSIGNED_CALL = "unsigned call";

/** The one text value of `key`, or undefined when there is none, several, or a binary one. */
function one(md: Metadata, key: string): string | undefined {
  const values = md.get(key);
  return values.length === 1 && typeof values[0] === "string" ? values[0] : undefined;
}

/**
 * A credential's entry as this version writes it, from the three entries of a process of the
 * version before (`LEGACY`); undefined when they are not all there, one each. Its parts are
 * checked as the entry's are.
 */
function fromLegacy(md: Metadata, kind: "caller" | "service"): string | undefined {
  if (kind === "caller") {
    const bytes = md.get(LEGACY.principalBytes);
    const issuedAt = one(md, LEGACY.principalIssuedAt);
    const signature = one(md, LEGACY.principalSignature);
    if (bytes.length !== 1 || !Buffer.isBuffer(bytes[0]) || !issuedAt || !signature)
      return undefined;
    return `${issuedAt}.${bytes[0].toString("base64")}.${signature}`;
  }
  const name = one(md, LEGACY.serviceName);
  const issuedAt = one(md, LEGACY.serviceIssuedAt);
  const signature = one(md, LEGACY.serviceSignature);
  if (!name || name.includes(".") || !issuedAt || !signature) return undefined;
  return `${name}.${issuedAt}.${signature}`;
}

/**
 * `md` as a process of the version before reads it: a credential's entry as its three, and the
 * rest as it is (`LEGACY`; the request's entry is `grpcMetadata.ts`'s to convert).
 */
export function legacyCredentials(md: Metadata): Metadata {
  const out = md.clone();
  const caller = one(md, CALLER);
  const callerParts = caller === undefined ? undefined : partsOf(caller);
  if (callerParts) {
    out.remove(CALLER);
    out.set(LEGACY.principalBytes, Buffer.from(callerParts[1], "base64"));
    out.set(LEGACY.principalIssuedAt, callerParts[0]);
    out.set(LEGACY.principalSignature, callerParts[2]);
  }
  const service = one(md, SERVICE);
  const serviceParts = service === undefined ? undefined : partsOf(service);
  if (serviceParts) {
    out.remove(SERVICE);
    out.set(LEGACY.serviceName, serviceParts[0]);
    out.set(LEGACY.serviceIssuedAt, serviceParts[1]);
    out.set(LEGACY.serviceSignature, serviceParts[2]);
  }
  return out;
}

/** A credential's three dot-separated parts, or undefined when it has not exactly three. */
function partsOf(token: string): [string, string, string] | undefined {
  const parts = token.split(".");
  return parts.length === 3 ? (parts as [string, string, string]) : undefined;
}

// Canonical decimal only: the signed text and its number are then one and the same.
const ISSUED_AT = /^(0|[1-9][0-9]{0,15})$/;
// Standard base64's characters only: Buffer would skip any other and decode the rest.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fresh(issuedAt: string, maxAgeMs: number, now: number): void {
  const age = now - Number(issuedAt);
  if (age > maxAgeMs || age < -maxAgeMs) throw refused("signature expired");
}

// Verifying and decoding cost ~100 µs for a small principal and ~1 ms for one of 80 KB; one
// whose entry was checked before (the gateway reuses one per principal for a few seconds) is
// taken from here instead, by its text. Bounded in entries and in the characters it keeps.
const VERIFIED_CACHE_ENTRIES = 1_000;
const VERIFIED_CACHE_CHARS = 8 * 1024 * 1024;

type VerifiedCaller = Extract<VerifiedCall, { kind: "caller" }>;

export function callVerifier(trust: CallTrust): CallVerifier {
  const maxAgeMs = trust.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const verified = new Map<string, { issuedAt: string; call: VerifiedCaller }>();
  let verifiedChars = 0;
  const remember = (token: string, entry: { issuedAt: string; call: VerifiedCaller }) => {
    if (token.length > VERIFIED_CACHE_CHARS / 4) return;
    verified.set(token, entry);
    verifiedChars += token.length;
    for (const oldest of verified.keys()) {
      if (verified.size <= VERIFIED_CACHE_ENTRIES && verifiedChars <= VERIFIED_CACHE_CHARS) break;
      verified.delete(oldest);
      verifiedChars -= oldest.length;
    }
  };
  // A service reuses one signature per RPC for seconds too (serviceCredential): the RPC each
  // entry was checked for, so a later call is one lookup.
  const servicesVerified = new Map<string, string>();
  const keyOf = (signer: string): KeyObject | undefined =>
    Object.hasOwn(trust.keys, signer) ? trust.keys[signer] : undefined;

  function caller(md: Metadata, now: number): VerifiedCaller {
    const token = one(md, CALLER) ?? fromLegacy(md, "caller");
    if (token === undefined) throw refused("malformed principal");
    const hit = verified.get(token);
    if (hit) {
      fresh(hit.issuedAt, maxAgeMs, now);
      return hit.call;
    }
    const parts = partsOf(token);
    // The principal may be empty (a caller without any right); the signature never is.
    if (!parts || !ISSUED_AT.test(parts[0]) || !BASE64.test(parts[1]) || parts[2] === "")
      throw refused("malformed principal");
    const [issuedAt, principalText, signature] = parts;
    const bytes = Buffer.from(principalText, "base64");
    const key = keyOf(GATEWAY.name);
    const sig = Buffer.from(signature, "base64");
    if (!key || !verify(null, callerPayload(issuedAt, bytes), key, sig))
      throw refused("principal not signed by the gateway");
    fresh(issuedAt, maxAgeMs, now);
    const call = {
      kind: "caller" as const,
      principal: Principal.decode(bytes),
      caller: signedCaller(token),
    };
    remember(token, { issuedAt, call });
    return call;
  }

  function service(md: Metadata, path: string, now: number): string {
    const token = one(md, SERVICE) ?? fromLegacy(md, "service");
    const parts = token === undefined ? undefined : partsOf(token);
    if (token === undefined || !parts || !ISSUED_AT.test(parts[1]) || parts[2] === "")
      throw refused("malformed service credential");
    const [name, issuedAt, signature] = parts;
    if (servicesVerified.get(token) !== path) {
      const key = keyOf(name);
      if (!key) throw refused(`no key of a service ${JSON.stringify(name)} that calls this one`);
      const sig = Buffer.from(signature, "base64");
      if (!verify(null, servicePayload(name, path, issuedAt), key, sig))
        throw refused(`call not signed by ${name}`);
      if (servicesVerified.size >= VERIFIED_CACHE_ENTRIES)
        servicesVerified.delete(servicesVerified.keys().next().value!);
      servicesVerified.set(token, path);
    }
    fresh(issuedAt, maxAgeMs, now);
    return name;
  }

  return {
    verify(md, path, services, now = Date.now()) {
      const asCaller = md.get(CALLER).length > 0 || md.get(LEGACY.principalBytes).length > 0;
      const asService = md.get(SERVICE).length > 0 || md.get(LEGACY.serviceName).length > 0;
      const rpc = path.slice(path.lastIndexOf("/") + 1);
      if (asCaller && asService) throw refused("a call is for a caller or a service, not both");
      if (asService) {
        const name = service(md, path, now);
        if (!services?.includes(name))
          throw new DomainError("access-forbidden", `${rpc} does not serve ${name}'s own calls`);
        return { kind: "service", service: name };
      }
      if (asCaller) {
        const verifiedCaller = caller(md, now);
        if (services)
          throw new DomainError(
            "access-forbidden",
            `${rpc} serves only ${services.join(", ")}, not a caller`,
          );
        return verifiedCaller;
      }
      throw refused(UNSIGNED_CALL);
    },
  };
}
