import { generateKeyPairSync } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AccountRole } from "@argus/proto/common/v1";
import {
  callVerifier,
  generateCallKeyPair,
  legacyCredentials,
  parsePrivateKey,
  parsePublicKey,
  principalSigner,
  serviceCredential,
  type CallCredential,
} from "../src/callCredentials.ts";
import { DomainError } from "../src/errors.ts";
import { NOBODY } from "../src/principal.ts";

const gatewayKeys = generateCallKeyPair();
const catalogKeys = generateCallKeyPair();
const gateway = parsePrivateKey(gatewayKeys.privateKey);
const catalog = parsePrivateKey(catalogKeys.privateKey);
const verifier = callVerifier({
  keys: {
    gateway: parsePublicKey(gatewayKeys.publicKey),
    catalog: parsePublicKey(catalogKeys.publicKey),
  },
});
const GET_USER = "/argus.identity.v1.IdentityService/GetUser";
const RESOLVE = "/argus.identity.v1.DirectoryService/ResolveUsers";
const principal = {
  ...NOBODY,
  accountId: "acc",
  userId: "u1",
  accountRole: AccountRole.ACCOUNT_ROLE_MEMBER,
};

const CALLER = "argus-caller";
const SERVICE = "argus-service-call";

/** The three parts of a call's caller entry: issue time, principal (base64), signature. */
const callerParts = (md: Metadata): [string, string, string] => {
  const [at = "", text = "", sig = ""] = String(md.get(CALLER)[0]).split(".");
  return [at, text, sig];
};

const metadataOf = (c: CallCredential, path = GET_USER): Metadata => {
  const md = new Metadata();
  c.attach(md, path);
  return md;
};

/** The problem type and detail a verification fails with, or "ok". */
function outcome(md: Metadata, path: string, services?: readonly string[], now?: number): string {
  try {
    verifier.verify(md, path, services, now);
    return "ok";
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return `${err.type}: ${err.message}`;
  }
}

describe("a caller's principal, signed by the gateway", () => {
  it("is verified with the gateway's public key, and forwarded byte for byte", () => {
    const md = metadataOf(principalSigner(gateway).sign(principal));
    // One entry: its issue time, the principal's bytes and the signature.
    expect(md.getMap()).toEqual({ "argus-caller": expect.stringMatching(/^\d+\.[^.]+\.[^.]+$/) });
    const got = verifier.verify(md, GET_USER, undefined);
    if (got.kind !== "caller") throw new Error("not a caller");
    expect(got.principal.userId).toBe("u1");
    // An onward call carries exactly the received entry.
    const onward = metadataOf(got.caller, RESOLVE);
    expect(onward.getMap()).toEqual(md.getMap());
    expect(verifier.verify(onward, GET_USER, undefined).kind).toBe("caller");
  });

  it("is refused unsigned, tampered, stale or signed by another service's key", () => {
    expect(outcome(new Metadata(), GET_USER)).toMatch(/authentication-required: unsigned/);

    const tampered = metadataOf(principalSigner(gateway).sign(principal));
    const [at, text, sig] = callerParts(tampered);
    const bytes = Buffer.from(text, "base64");
    bytes[bytes.length - 1]! ^= 1;
    tampered.set(CALLER, `${at}.${bytes.toString("base64")}.${sig}`);
    expect(outcome(tampered, GET_USER)).toMatch(
      /authentication-required: .*not signed by the gateway/,
    );

    // Made an admin after signing: the signature no longer covers the bytes.
    const promoted = metadataOf(principalSigner(gateway).sign(principal));
    const admin = metadataOf(
      principalSigner(gateway).sign({ ...principal, accountRole: AccountRole.ACCOUNT_ROLE_ADMIN }),
    );
    const [signedAt, , signature] = callerParts(promoted);
    promoted.set(CALLER, `${signedAt}.${callerParts(admin)[1]}.${signature}`);
    expect(outcome(promoted, GET_USER)).toMatch(/not signed by the gateway/);

    const later = metadataOf(principalSigner(gateway).sign(principal));
    const [laterAt, laterText, laterSig] = callerParts(later);
    later.set(CALLER, `${Number(laterAt) + 1}.${laterText}.${laterSig}`);
    expect(outcome(later, GET_USER)).toMatch(/not signed by the gateway/);

    // A service's own key is no gateway: it cannot mint a caller.
    const minted = metadataOf(principalSigner(catalog).sign(principal));
    expect(outcome(minted, GET_USER)).toMatch(
      /authentication-required: .*not signed by the gateway/,
    );

    const stale = metadataOf(principalSigner(gateway).sign(principal, 0));
    expect(outcome(stale, GET_USER, undefined, 120_000)).toMatch(/expired/);
    expect(outcome(stale, GET_USER, undefined, 30_000)).toBe("ok");
    // Checked before, it is still refused once it is too old.
    expect(outcome(stale, GET_USER, undefined, 120_000)).toMatch(/expired/);
  });

  it("is refused malformed: other than three parts, a part empty, not canonical, or twice", () => {
    const good = metadataOf(principalSigner(gateway).sign(principal));
    const [at, text, sig] = callerParts(good);
    const malformed = [
      `${at}.${text}`,
      `${at}.${text}.${sig}.x`,
      `${at}.${text}.`,
      `0${at}.${text}.${sig}`,
      `${at}.${text}!.${sig}`,
    ].map((entry) => {
      const md = new Metadata();
      md.set(CALLER, entry);
      return md;
    });
    const twice = metadataOf(principalSigner(gateway).sign(principal));
    twice.add(CALLER, callerParts(good).join("."));
    for (const md of [...malformed, twice])
      expect(outcome(md, GET_USER)).toMatch(/authentication-required: malformed principal/);
  });

  it("is refused by an RPC that serves only services", () => {
    const md = metadataOf(principalSigner(gateway).sign(principal), RESOLVE);
    expect(outcome(md, RESOLVE, ["catalog"])).toMatch(
      /access-forbidden: ResolveUsers serves only catalog/,
    );
  });

  it("one signature per principal object serves calls for a few seconds", () => {
    const signer = principalSigner(gateway, 5_000);
    const first = signer.sign(principal, 10_000);
    expect(signer.sign(principal, 14_999)).toBe(first);
    expect(signer.sign(principal, 15_000)).not.toBe(first);
    expect(signer.sign({ ...principal }, 10_001)).not.toBe(first);
  });
});

describe("a service's own call", () => {
  it("is served by the RPCs that name the service, and by no other", () => {
    const md = metadataOf(serviceCredential("catalog", catalog), RESOLVE);
    expect(verifier.verify(md, RESOLVE, ["catalog"])).toEqual({
      kind: "service",
      service: "catalog",
    });
    expect(outcome(md, RESOLVE, ["gateway"])).toMatch(
      /access-forbidden: ResolveUsers does not serve catalog/,
    );
    const elsewhere = metadataOf(serviceCredential("catalog", catalog), GET_USER);
    expect(outcome(elsewhere, GET_USER)).toMatch(
      /access-forbidden: GetUser does not serve catalog/,
    );
  });

  it("is refused when signed for another RPC, by another key, or by an unknown service", () => {
    const forOther = metadataOf(serviceCredential("catalog", catalog), GET_USER);
    expect(outcome(forOther, RESOLVE, ["catalog"])).toMatch(
      /authentication-required: call not signed by catalog/,
    );
    const posing = metadataOf(serviceCredential("gateway", catalog), RESOLVE);
    expect(outcome(posing, RESOLVE, ["gateway"])).toMatch(/not signed by gateway/);
    const stranger = metadataOf(serviceCredential("dataset", catalog), RESOLVE);
    expect(outcome(stranger, RESOLVE, ["dataset"])).toMatch(/no key of a service "dataset"/);
  });

  it("is checked again when a signature checked before comes for another RPC or time", () => {
    const md = metadataOf(serviceCredential("catalog", catalog), RESOLVE);
    expect(outcome(md, RESOLVE, ["catalog"])).toBe("ok");
    expect(outcome(md, RESOLVE, ["catalog"])).toBe("ok");
    expect(outcome(md, GET_USER, ["catalog"])).toMatch(/call not signed by catalog/);
    const later = metadataOf(serviceCredential("catalog", catalog), RESOLVE);
    const [name, at, sig] = String(later.get(SERVICE)[0]).split(".");
    later.set(SERVICE, `${name}.${Number(at) + 1}.${sig}`);
    expect(outcome(later, RESOLVE, ["catalog"])).toMatch(/call not signed by catalog/);
    const stale = metadataOf(serviceCredential("catalog", catalog), RESOLVE);
    expect(outcome(stale, RESOLVE, ["catalog"], Date.now() + 120_000)).toMatch(/expired/);
  });

  it("cannot also carry a caller", () => {
    const md = metadataOf(serviceCredential("catalog", catalog), RESOLVE);
    principalSigner(gateway).sign(principal).attach(md, RESOLVE);
    expect(outcome(md, RESOLVE, ["catalog"])).toMatch(/not both/);
  });
});

describe("the entries of the version before 2026-12-04, while a rolling upgrade runs both", () => {
  it("are turned into three entries a credential, and verified as this version's", () => {
    const md = legacyCredentials(metadataOf(principalSigner(gateway).sign(principal)));
    expect(Object.keys(md.getMap()).sort()).toEqual([
      "argus-principal-bin",
      "argus-principal-issued-at",
      "argus-principal-sig",
    ]);
    const got = verifier.verify(md, GET_USER, undefined);
    if (got.kind !== "caller") throw new Error("not a caller");
    expect(got.principal.userId).toBe("u1");
    // Forwarded as this version's one entry.
    expect(Object.keys(metadataOf(got.caller, RESOLVE).getMap())).toEqual([CALLER]);

    const service = legacyCredentials(metadataOf(serviceCredential("catalog", catalog), RESOLVE));
    expect(Object.keys(service.getMap()).sort()).toEqual([
      "argus-service",
      "argus-service-issued-at",
      "argus-service-sig",
    ]);
    expect(verifier.verify(service, RESOLVE, ["catalog"])).toEqual({
      kind: "service",
      service: "catalog",
    });
  });

  it("are refused tampered or incomplete, as this version's are", () => {
    const admin = legacyCredentials(
      metadataOf(
        principalSigner(gateway).sign({
          ...principal,
          accountRole: AccountRole.ACCOUNT_ROLE_ADMIN,
        }),
      ),
    );
    const promoted = legacyCredentials(metadataOf(principalSigner(gateway).sign(principal)));
    promoted.set("argus-principal-bin", admin.get("argus-principal-bin")[0]!);
    expect(outcome(promoted, GET_USER)).toMatch(/not signed by the gateway/);

    const incomplete = legacyCredentials(metadataOf(principalSigner(gateway).sign(principal)));
    incomplete.remove("argus-principal-sig");
    expect(outcome(incomplete, GET_USER)).toMatch(/malformed principal/);

    const later = legacyCredentials(metadataOf(serviceCredential("catalog", catalog), RESOLVE));
    later.set(
      "argus-service-issued-at",
      String(Number(later.get("argus-service-issued-at")[0]) + 1),
    );
    expect(outcome(later, RESOLVE, ["catalog"])).toMatch(/call not signed by catalog/);
  });
});

describe("keys", () => {
  it("are read as PEM, a certificate's PEM or base64 DER, and must be Ed25519", () => {
    const pair = generateKeyPairSync("ed25519");
    const pem = pair.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const pubPem = pair.publicKey.export({ format: "pem", type: "spki" }).toString();
    expect(parsePrivateKey(pem).asymmetricKeyType).toBe("ed25519");
    expect(parsePublicKey(pubPem).asymmetricKeyType).toBe("ed25519");
    expect(() => parsePublicKey(pem)).toThrow(/expected a PEM PUBLIC KEY/);
    expect(() => parsePublicKey(gatewayKeys.privateKey)).toThrow(/not an Ed25519 public key/);
    expect(() => parsePrivateKey("not a key")).toThrow(/not an Ed25519 private key/);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() =>
      parsePrivateKey(rsa.privateKey.export({ format: "pem", type: "pkcs8" }).toString()),
    ).toThrow(/Ed25519/);
  });
});
