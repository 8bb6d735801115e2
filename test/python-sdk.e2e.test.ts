import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type Api } from "./support.ts";

// The official Python SDK, pinned, in a virtualenv of its own under .tools/ (created from PyPI
// on first use, as CI does on a fresh machine).
const SDK = "arize==8.61.0";
const root = fileURLToPath(new URL("..", import.meta.url));
const venv = `${root}.tools/arize-8.61.0`;
const python = `${venv}/bin/python`;
const run = promisify(execFile);

let api: Api;
beforeAll(async () => {
  if (!existsSync(python)) {
    await run("python3", ["-m", "venv", venv]);
    await run(`${venv}/bin/pip`, ["install", "--quiet", "--disable-pip-version-check", SDK], {
      timeout: 240_000,
    });
  }
  api = await startApi();
}, 300_000);
afterAll(() => api?.stop());

it("create_service_key returns the raw key and a bot user whose roles the SDK can parse", async () => {
  const space = (await api.req("GET", "/v2/spaces")).body.spaces[0];
  const org = (await api.req("GET", "/v2/organizations")).body.organizations[0];
  const { stdout } = await run(
    python,
    ["test/python/service_key.py", api.stack.baseUrl, api.stack.apiKey, space.id, org.id],
    { cwd: root },
  );
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(out.key).toMatch(/^ak-argus-/);
  expect(out.account_role).toEqual({ type: "PREDEFINED", name: "MEMBER" });
  expect(out.org_role).toEqual({ type: "PREDEFINED", name: "READ_ONLY" });
  expect(out.space_role).toEqual({ type: "PREDEFINED", name: "MEMBER" });
  expect((await api.req("GET", "/v2/spaces", { key: out.key })).status).toBe(200);
}, 60_000);
