import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support.ts";

// Issue 3: deleting a space cascades to what it owns. Identity's SpaceDeleted is consumed by
// the catalog, which deletes the space's tags, projects, prompts, configs, ... asynchronously.

let api: Api;
let orgId: string;

const newSpace = async (name: string): Promise<string> => {
  const res = await api.req("POST", "/v2/spaces", { body: { organization_id: orgId, name } });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

/** A tagged project, a prompt and an annotation config in the space; their GET paths. */
async function fill(spaceId: string, suffix: string) {
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await api.req("POST", path, { body: { space_id: spaceId, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const tag = await post("/v2/tags", { name: `tag ${suffix}` });
  const project = await post("/v2/projects", { name: `project ${suffix}` });
  const prompt = await post("/v2/prompts", {
    name: `prompt-${suffix}`,
    version: {
      commit_message: "initial",
      provider: "OPEN_AI",
      model: "gpt-4o",
      messages: [{ role: "USER", content: "Hello {name}" }],
    },
  });
  const config = await post("/v2/annotation-configs", {
    name: `config ${suffix}`,
    annotation_config_type: "CATEGORICAL",
    values: [{ label: "good" }, { label: "bad" }],
  });
  expect(
    (await api.req("POST", `/v2/projects/${project}/tags`, { body: { tag_ids: [tag] } })).status,
  ).toBe(200);
  return {
    ids: [tag, project, prompt, config],
    paths: [
      `/v2/tags/${tag}`,
      `/v2/projects/${project}`,
      `/v2/prompts/${prompt}`,
      `/v2/annotation-configs/${config}`,
    ],
    projectTags: `/v2/projects/${project}/tags`,
  };
}

const statuses = async (paths: string[]) =>
  Promise.all(paths.map(async (p) => (await api.req("GET", p)).status));

/** Every id the account-wide lists show. */
const listed = async (): Promise<Set<string>> => {
  const lists = [
    ["/v2/tags", "tags"],
    ["/v2/projects", "projects"],
    ["/v2/prompts", "prompts"],
    ["/v2/annotation-configs", "annotation_configs"],
  ] as const;
  const ids = new Set<string>();
  for (const [path, key] of lists) {
    const res = await api.req("GET", `${path}?limit=100`);
    expect(res.status).toBe(200);
    for (const r of res.body[key] as { id: string }[]) ids.add(r.id);
  }
  return ids;
};

beforeAll(async () => {
  api = await startApi();
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
});
afterAll(() => api?.stop());

describe("DELETE /v2/spaces/{id} cascades to the catalog", () => {
  it("the space's resources become 404 and leave the lists; another space's stay", async () => {
    const doomed = await fill(await newSpace("cascade doomed"), "doomed");
    const keptSpace = await newSpace("cascade kept");
    const kept = await fill(keptSpace, "kept");
    const doomedSpace = (await api.req("GET", doomed.paths[1]!)).body.space_id as string;

    expect((await api.req("DELETE", `/v2/spaces/${doomedSpace}`)).status).toBe(204);

    const until = Date.now() + 15_000;
    let seen = await statuses(doomed.paths);
    while (seen.some((s) => s !== 404) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await statuses(doomed.paths);
    }
    expect(seen).toEqual([404, 404, 404, 404]);
    const shown = await listed();
    for (const id of doomed.ids) expect(shown.has(id)).toBe(false);

    expect(await statuses(kept.paths)).toEqual([200, 200, 200, 200]);
    for (const id of kept.ids) expect(shown.has(id)).toBe(true);
    expect((await api.req("GET", kept.projectTags)).body.tags).toHaveLength(1);
  });

  it("deleting an organization cascades through each of its spaces", async () => {
    const org = await api.req("POST", "/v2/organizations", { body: { name: "cascade org" } });
    expect(org.status).toBe(201);
    const space = await api.req("POST", "/v2/spaces", {
      body: { organization_id: org.body.id, name: "cascade org space" },
    });
    const held = await fill(space.body.id, "org");
    expect((await api.req("DELETE", `/v2/organizations/${org.body.id}`)).status).toBe(204);
    const until = Date.now() + 15_000;
    let seen = await statuses(held.paths);
    while (seen.some((s) => s !== 404) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await statuses(held.paths);
    }
    expect(seen).toEqual([404, 404, 404, 404]);
  });
});
