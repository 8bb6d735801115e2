import { randomUUID } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import {
  callVerifier,
  generateCallKeyPair,
  parsePrivateKey,
  parsePublicKey,
  principalSigner,
} from "../src/callCredentials.ts";
import { NOBODY, type Principal } from "../src/principal.ts";
import { predefinedRole } from "../src/permissions.ts";

const keys = generateCallKeyPair();
const signer = principalSigner(parsePrivateKey(keys.privateKey));
const verifier = callVerifier({ keys: { gateway: parsePublicKey(keys.publicKey) } });
const PATH = "/argus.identity.v1.IdentityService/GetSpace";

/** What the gateway puts on a call at t=1000 ms. */
const sent = (p: Principal): Metadata => {
  const md = new Metadata();
  signer.sign(p, 1000).attach(md, PATH);
  return md;
};

/** What a service makes of it at t=2000 ms. */
const received = (md: Metadata): Principal => {
  const v = verifier.verify(md, PATH, undefined, 2000);
  if (v.kind !== "caller") throw new Error("not a caller");
  return v.principal;
};

describe("principal on the wire", () => {
  it("a principal bound in 1000 spaces round-trips and stays under HTTP/2's 64 KiB header limit", () => {
    const spaceGrants = [predefinedRole("ADMIN").id, predefinedRole("READ_ONLY").id].map(
      (roleId) => ({ roleId, resourceIds: Array.from({ length: 500 }, () => randomUUID()) }),
    );
    const md = sent({ ...NOBODY, accountId: "a", spaceGrants });
    // The entry as it travels: the principal's bytes in base64, with the issue time and signature.
    const entry = String(md.get("argus-caller")[0]);
    expect(entry.length).toBeLessThan(64 * 1024);
    const got = received(md);
    expect(got.spaceGrants).toEqual(spaceGrants);
  });

  it("no grants stay none", () => {
    expect(received(sent(NOBODY)).spaceGrants).toEqual([]);
  });
});
