import { randomUUID } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { GATEWAY_PRINCIPAL, attachPrincipal, verifyPrincipal } from "../src/principal.ts";
import { predefinedRole } from "../src/permissions.ts";

const SECRET = "s".repeat(32);

describe("principal on the wire", () => {
  it("a principal bound in 1000 spaces round-trips and stays under HTTP/2's 64 KiB header limit", () => {
    const admin = { permissions: [...predefinedRole("ADMIN").permissions].sort() };
    const reader = { permissions: [...predefinedRole("READ_ONLY").permissions].sort() };
    const spacePermissions = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [randomUUID(), i % 2 ? admin : reader]),
    );
    const md = new Metadata();
    attachPrincipal(md, { ...GATEWAY_PRINCIPAL, accountId: "a", spacePermissions }, SECRET, 1000);
    const bytes = md.get("argus-principal-bin")[0] as Buffer;
    expect(bytes.length).toBeLessThan(64 * 1024);
    const got = verifyPrincipal(md, SECRET, 60_000, 2000);
    expect(got.spacePermissions).toEqual(spacePermissions);
  });

  it("no space permissions stay none", () => {
    const md = new Metadata();
    attachPrincipal(md, GATEWAY_PRINCIPAL, SECRET, 1000);
    expect(verifyPrincipal(md, SECRET, 60_000, 2000).spacePermissions).toEqual({});
  });
});
