import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./support.ts";

// Deleting a space deletes its datasets and experiments (the dataset service consumes
// identity's SpaceDeleted); deleting a dataset deletes its experiments, and the catalog drops
// its tag attachments (it consumes the dataset service's DatasetDeleted).

let api: Api;
let orgId: string;
let databaseUrl: string;

const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
  const res = await api.req("POST", path, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};

const statuses = (paths: string[]) =>
  Promise.all(paths.map(async (p) => (await api.req("GET", p)).status));

async function eventually(paths: string[], want: number): Promise<number[]> {
  const until = Date.now() + 15_000;
  let seen = await statuses(paths);
  while (seen.some((s) => s !== want) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    seen = await statuses(paths);
  }
  return seen;
}

/** A tagged dataset with an experiment on it, and an experiment without a dataset. */
async function fill(spaceId: string, suffix: string) {
  const dataset = await post("/v2/datasets", {
    name: `dataset ${suffix}`,
    space_id: spaceId,
    examples: [{ question: "q" }],
  });
  const examples = await api.req("GET", `/v2/datasets/${dataset}/examples`);
  const exampleId = examples.body.examples[0].id as string;
  const onDataset = await post("/v2/experiments", {
    name: `on ${suffix}`,
    dataset_id: dataset,
    experiment_runs: [{ example_id: exampleId, output: "o" }],
  });
  const alone = await post("/v2/experiments", {
    name: `alone ${suffix}`,
    space_id: spaceId,
    experiment_runs: [{ output: "o" }],
  });
  const tag = await post("/v2/tags", { name: `tag ${suffix}`, space_id: spaceId });
  const tagged = await api.req("POST", `/v2/datasets/${dataset}/tags`, {
    body: { tag_ids: [tag] },
  });
  expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);
  return {
    dataset,
    tag,
    paths: [`/v2/datasets/${dataset}`, `/v2/experiments/${onDataset}`, `/v2/experiments/${alone}`],
  };
}

async function attachments(datasetUuid: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  try {
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from catalog.tag_attachments
        where resource_type = 'dataset' and resource_id = $1`,
      [datasetUuid],
    );
    return rows[0]!.n;
  } finally {
    await pool.end();
  }
}

const uuidOf = (id: string) => Buffer.from(id, "base64").toString("utf8").split(":")[1]!;

beforeAll(async () => {
  api = await startApi();
  databaseUrl = api.stack.env.DATABASE_URL!;
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
});
afterAll(() => api?.stop());

describe("deletes in the dataset service cascade", () => {
  it("deleting a space deletes its datasets and experiments; another space's stay", async () => {
    const space = async (name: string) => post("/v2/spaces", { organization_id: orgId, name });
    const doomedSpace = await space("dataset cascade doomed");
    const doomed = await fill(doomedSpace, "doomed");
    const kept = await fill(await space("dataset cascade kept"), "kept");
    expect((await api.req("DELETE", `/v2/spaces/${doomedSpace}`)).status).toBe(204);
    expect(await eventually(doomed.paths, 404)).toEqual([404, 404, 404]);
    expect(await statuses(kept.paths)).toEqual([200, 200, 200]);
    const listed = await api.req("GET", "/v2/experiments?limit=100");
    const ids = (listed.body.experiments as { id: string }[]).map((e) => e.id);
    for (const p of doomed.paths.slice(1)) expect(ids).not.toContain(p.split("/").at(-1));
    for (const p of kept.paths.slice(1)) expect(ids).toContain(p.split("/").at(-1));
  });

  it("deleting a dataset deletes its experiments and drops its tag attachments", async () => {
    const spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id as string;
    const held = await fill(spaceId, "direct");
    expect(await attachments(uuidOf(held.dataset))).toBe(1);
    expect((await api.req("DELETE", held.paths[0]!)).status).toBe(204);
    expect(await statuses(held.paths.slice(0, 2))).toEqual([404, 404]);
    expect(await statuses(held.paths.slice(2))).toEqual([200]);
    const until = Date.now() + 15_000;
    while ((await attachments(uuidOf(held.dataset))) > 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(await attachments(uuidOf(held.dataset))).toBe(0);
    expect((await api.req("GET", `/v2/tags/${held.tag}`)).status).toBe(200);
  });
});
