import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AccountRole } from "@argus/proto/common/v1";
import { DomainError } from "../src/errors.ts";
import { GATEWAY_PRINCIPAL, attachPrincipal, verifyPrincipal } from "../src/principal.ts";

const SECRET = "s".repeat(32);
const principal = {
  ...GATEWAY_PRINCIPAL,
  accountId: "acc",
  userId: "u1",
  accountRole: AccountRole.ACCOUNT_ROLE_ADMIN,
};

describe("signed principal", () => {
  it("round-trips when signed with the shared secret", () => {
    const md = new Metadata();
    attachPrincipal(md, principal, SECRET, 1000);
    const got = verifyPrincipal(md, SECRET, 60_000, 2000);
    expect(got.userId).toBe("u1");
    expect(got.accountRole).toBe(AccountRole.ACCOUNT_ROLE_ADMIN);
  });

  it("rejects unsigned, tampered, foreign-signed and stale principals", () => {
    expect(() => verifyPrincipal(new Metadata(), SECRET, 60_000)).toThrow(DomainError);

    const tampered = new Metadata();
    attachPrincipal(tampered, principal, SECRET);
    const bytes = tampered.get("argus-principal-bin")[0] as Buffer;
    const forged = Buffer.from(bytes);
    forged[forged.length - 3] = forged[forged.length - 3]! ^ 1;
    tampered.set("argus-principal-bin", forged);
    expect(() => verifyPrincipal(tampered, SECRET, 60_000)).toThrow(/signature/);

    const foreign = new Metadata();
    attachPrincipal(foreign, principal, "o".repeat(32));
    expect(() => verifyPrincipal(foreign, SECRET, 60_000)).toThrow(/signature/);

    const stale = new Metadata();
    attachPrincipal(stale, principal, SECRET, 0);
    expect(() => verifyPrincipal(stale, SECRET, 60_000, 120_000)).toThrow(/expired/);
  });
});
