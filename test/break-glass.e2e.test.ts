import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type Api, type Json } from "./support.ts";

const run = promisify(execFile);
let api: Api;
beforeAll(async () => {
  api = await startApi();
}, 120_000);
afterAll(() => api?.stop());

/** services/identity/src/adminKey.ts with identity's own database role, as an operator runs it. */
async function breakGlass(email: string): Promise<{ code: number; out: string }> {
  return run(process.execPath, ["services/identity/src/adminKey.ts", email], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: api.stack.processEnv.identity!.DATABASE_URL!,
      ARGUS_API_KEY_PEPPER: api.stack.env.ARGUS_API_KEY_PEPPER!,
    },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      out: e.stdout + e.stderr,
    }),
  );
}

it("after every key of the only admin is revoked, the break-glass command restores access, audited", async () => {
  const keys = (await api.req("GET", "/v2/api-keys?limit=100")).body.api_keys as Json[];
  expect(keys.length).toBeGreaterThan(0);
  // Revoke the others first, then the key in use.
  for (const k of keys)
    expect((await api.req("PUT", `/v2/api-keys/${k.id}/revoke`)).status).toBe(204);
  expect((await api.req("GET", "/v2/spaces")).status).toBe(401);

  expect((await breakGlass("nobody@example.com")).code).not.toBe(0);
  const { code, out } = await breakGlass("admin@argus.local");
  expect(code, out).toBe(0);
  const key = out.trim().split("\n").at(-1)!;
  expect(key).toMatch(/^ak-argus-/);

  expect((await api.req("GET", "/v2/spaces", { key })).status).toBe(200);
  const deadline = Date.now() + 20_000;
  let entry: Json | undefined;
  while (!entry && Date.now() < deadline) {
    const logs = (await api.req("GET", "/v2/audit-logs?limit=100", { key })).body.logs as Json[];
    entry = logs?.find(
      (l) => l.operation_name === "ApiKeyCreated" && l.request_id === "break-glass",
    );
    if (!entry) await new Promise((r) => setTimeout(r, 200));
  }
  expect(entry).toBeDefined();
}, 60_000);
