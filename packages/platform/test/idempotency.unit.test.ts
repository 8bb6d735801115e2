import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { isIdempotent, serviceDefinitionsOf } from "../src/idempotency.ts";

const generated = fileURLToPath(new URL("../../proto/src/", import.meta.url));

/** Every generated module: grpc-js paths and generic definitions side by side. */
async function allGenerated() {
  const files = readdirSync(generated, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
  const modules = await Promise.all(
    files.map((f) => import(pathToFileURL(generated + f).href) as Promise<object>),
  );
  const grpcPaths = modules.flatMap((m) =>
    Object.values(m)
      .filter((v): v is Record<string, { path: string }> => typeof v === "object" && v !== null)
      .flatMap((v) => Object.values(v))
      .filter((method) => typeof method?.path === "string")
      .map((method) => method.path),
  );
  const methods = serviceDefinitionsOf(...modules).flatMap((d) =>
    Object.values(d.methods).map((m) => ({
      path: `/${d.fullName}/${m.name}`,
      level: m.options.idempotencyLevel,
    })),
  );
  return { grpcPaths, methods };
}

describe("idempotency comes from proto/", () => {
  it("knows every generated method, as declared", async () => {
    const { grpcPaths, methods } = await allGenerated();
    expect(methods.map((m) => m.path).sort()).toEqual([...grpcPaths].sort());
    for (const m of methods) expect([m.path, isIdempotent(m.path)]).toEqual([m.path, !!m.level]);
  });

  it("every Get and List is declared NO_SIDE_EFFECTS", async () => {
    const { methods } = await allGenerated();
    // Argus's own services: a vendored contract (arrow.flight.protocol) is served, not called.
    const reads = methods.filter(
      (m) => m.path.startsWith("/argus.") && /\/(Get|List)[A-Z]\w*$/.test(m.path),
    );
    expect(reads.length).toBeGreaterThan(30);
    for (const m of reads) expect([m.path, m.level]).toEqual([m.path, "NO_SIDE_EFFECTS"]);
  });

  it("mutations are retried only when declared IDEMPOTENT", () => {
    expect(isIdempotent("/argus.identity.v1.IdentityService/GetSpace")).toBe(true);
    expect(isIdempotent("/argus.identity.v1.IdentityService/Authenticate")).toBe(true);
    expect(isIdempotent("/argus.identity.v1.ApiKeyService/RevokeApiKey")).toBe(true);
    expect(isIdempotent("/argus.catalog.v1.TagService/AttachTags")).toBe(true);
    expect(isIdempotent("/argus.identity.v1.IdentityService/CreateSpace")).toBe(false);
    expect(isIdempotent("/argus.catalog.v1.TagService/DetachTags")).toBe(false);
    expect(isIdempotent("/argus.unknown.v1.Nope/GetThing")).toBe(false);
  });
});
