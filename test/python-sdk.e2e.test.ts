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

/** What the SDK's generated model makes of an answer (it raises on what it cannot parse). */
async function parsedBySdk(module: string, model: string, body: unknown): Promise<unknown> {
  const child = execFile(python, ["test/python/parse_model.py", module, model], { cwd: root });
  child.stdin!.end(JSON.stringify(body));
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  expect(code).toBe(0);
  return JSON.parse(out);
}

it("remove-tags answers what the SDK reads: completed, deleted, not_deleted", async () => {
  const spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const project = await api.req("POST", "/v2/projects", {
    body: { name: "py", space_id: spaceId },
  });
  const tag = await api.req("POST", "/v2/tags", { body: { name: "py-tag", space_id: spaceId } });
  const other = await api.req("POST", "/v2/tags", {
    body: { name: "py-other", space_id: spaceId },
  });
  const tags = `/v2/projects/${project.body.id}/tags`;
  expect((await api.req("POST", tags, { body: { tag_ids: [tag.body.id] } })).status).toBe(200);
  const res = await api.req("DELETE", tags, { body: { tag_ids: [tag.body.id, other.body.id] } });
  expect(res.status).toBe(200);
  expect(await parsedBySdk("remove_tags_response", "RemoveTagsResponse", res.body)).toEqual({
    completed: false,
    deleted: [tag.body.id],
    not_deleted: [other.body.id],
  });
});
