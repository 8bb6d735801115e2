import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDataset } from "./authz-datasets.ts";
import { freshExperiment, runsFor } from "./authz-experiments.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

// Experiments end to end (spec "Experiment (list item)" and endpoint 12, the SDK's
// ExperimentsApi): the gateway and the dataset service, driven over HTTP with plain fetch.

let api: Api;
let spaceId: string;
let counter = 0;
const unique = () => `exp-${process.pid}-${++counter}`;
const typeOf = (id: string) => Buffer.from(id, "base64").toString().split(":")[0];
const publicId = (type: string, uuid: string) => Buffer.from(`${type}:${uuid}`).toString("base64");
const NOWHERE = "0192f4a0-0000-7000-8000-0000000000ff";
const MiB = 1024 * 1024;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);
const helpers = { asAdmin, unique, freshSpace: async () => spaceId };

/** Every run of an experiment, page after page of `limit`. */
async function allRuns(id: string, limit = 500): Promise<{ runs: Json[]; pages: number }> {
  const runs: Json[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await asAdmin(
      "GET",
      `/v2/experiments/${id}/runs?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    pages++;
    runs.push(...(page.experiment_runs as Json[]));
    cursor = page.pagination.has_more ? (page.pagination.next_cursor as string) : undefined;
    if (!page.pagination.has_more) expect(page.pagination).toEqual({ has_more: false });
  } while (cursor);
  return { runs, pages };
}

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
}, 120_000);
afterAll(() => api?.stop());

describe("experiments", () => {
  it("creates on a dataset, gets it, lists its runs and deletes it", async () => {
    const dataset = await freshDataset(helpers);
    const name = unique();
    const runs = [
      { example_id: dataset.exampleIds[0], output: "4", model: "gpt", nested: { a: [1, null] } },
      { example_id: dataset.exampleIds[1], output: 'Madrid ✓ "q" \\', error: "late", ü: "🚀" },
    ];
    const created = await api.req("POST", "/v2/experiments", {
      body: { name, dataset_id: dataset.id, experiment_runs: runs },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name,
      space_id: spaceId,
      dataset_id: dataset.id,
      dataset_version_id: dataset.versionId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      integration_id: null,
    });
    const id = created.body.id as string;
    expect(typeOf(id)).toBe("Experiment");
    expect(await asAdmin("GET", `/v2/experiments/${id}`)).toEqual(created.body);

    const { runs: listed } = await allRuns(id);
    expect(listed.map(({ id: runId, ...rest }) => [typeOf(runId as string), rest])).toEqual(
      runs.map((r) => ["ExperimentRun", r]),
    );

    const deleted = await api.req("DELETE", `/v2/experiments/${id}`);
    expect([deleted.status, deleted.body]).toEqual([204, {}]);
    expectProblem(await api.req("GET", `/v2/experiments/${id}`), 404, "resource-not-found");
    expectProblem(await api.req("GET", `/v2/experiments/${id}/runs`), 404, "resource-not-found");
    expectProblem(await api.req("DELETE", `/v2/experiments/${id}`), 404, "resource-not-found");
  });

  it("creates in a space without a dataset: null dataset ids, runs without examples", async () => {
    const created = await api.req("POST", "/v2/experiments", {
      body: {
        name: unique(),
        space_id: spaceId,
        experiment_runs: [{ output: "a" }, { output: "b", example_id: null, k: {} }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ dataset_id: null, dataset_version_id: null });
    const { runs } = await allRuns(created.body.id as string);
    expect(runs.map(({ id: _id, ...rest }) => rest)).toEqual([
      { example_id: null, output: "a" },
      { example_id: null, output: "b", k: {} },
    ]);
  });

  it("lists every readable experiment, by dataset, by space or by name; both ids are 400", async () => {
    const tag = unique();
    const onDataset = await freshExperiment(helpers, {
      space: spaceId,
      runs: (ids) => runsFor(ids),
    });
    const renamed = await api.req("POST", "/v2/experiments", {
      body: { name: `Alpha-${tag}-Beta`, space_id: spaceId, experiment_runs: runsFor(null) },
    });
    expect(renamed.status).toBe(201);
    const spaceOnly = renamed.body.id as string;

    const ids = async (query: string) => {
      const out: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await asAdmin(
          "GET",
          `/v2/experiments?limit=100${query}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        out.push(...(page.experiments as Json[]).map((e) => e.id as string));
        cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
      } while (cursor);
      return out;
    };
    const all = await ids("");
    expect(all).toEqual(expect.arrayContaining([onDataset.id, spaceOnly]));
    // Newest first.
    expect(all.indexOf(spaceOnly)).toBeLessThan(all.indexOf(onDataset.id));
    expect(await ids(`&dataset_id=${onDataset.datasetId}`)).toEqual([onDataset.id]);
    expect(await ids(`&space_id=${spaceId}`)).toEqual(
      expect.arrayContaining([onDataset.id, spaceOnly]),
    );
    expect(await ids(`&name=${encodeURIComponent(`a-${tag.toUpperCase()}-b`)}`)).toEqual([
      spaceOnly,
    ]);
    expect(await ids(`&space_id=${spaceId}&name=${encodeURIComponent(tag)}`)).toEqual([spaceOnly]);

    const page = await asAdmin("GET", `/v2/experiments?space_id=${spaceId}&limit=1`);
    expect(page.experiments).toHaveLength(1);
    expect(page.pagination).toEqual({ has_more: true, next_cursor: expect.any(String) });

    const both = await api.req(
      "GET",
      `/v2/experiments?dataset_id=${onDataset.datasetId}&space_id=${spaceId}`,
    );
    expectProblem(both, 400, "invalid-request");
    expect(both.body.detail).toBe("give dataset_id or space_id, not both");
    expectProblem(
      await api.req("GET", `/v2/experiments?name=${"x".repeat(256)}`),
      400,
      "invalid-request",
    );
    expect(await ids(`&name=${"x".repeat(255)}`)).toEqual([]);
    for (const query of [
      `dataset_id=${publicId("Dataset", NOWHERE)}`,
      `dataset_id=${spaceId}`,
      `space_id=${publicId("Space", NOWHERE)}`,
    ])
      expectProblem(await api.req("GET", `/v2/experiments?${query}`), 404, "resource-not-found");
  });

  it("appends runs, pages them in insertion order and searches them", async () => {
    const e = await freshExperiment(helpers);
    const more = Array.from({ length: 5 }, (_, i) => ({
      example_id: e.exampleIds[i % e.exampleIds.length],
      output: `more ${i}`,
      i,
    }));
    const inserted = await api.req("POST", `/v2/experiments/${e.id}/runs`, {
      body: { experiment_runs: more },
    });
    expect(inserted.status).toBe(201);
    expect(inserted.body).toMatchObject({ id: e.id, dataset_id: e.datasetId });
    const runIds = inserted.body.run_ids as string[];
    expect(runIds).toHaveLength(5);
    expect(runIds.every((r) => typeOf(r) === "ExperimentRun")).toBe(true);

    const { runs, pages } = await allRuns(e.id, 2);
    expect(pages).toBe(4);
    expect(runs.map((r) => r.id)).toEqual([...e.runIds, ...runIds]);
    expect(runs.slice(2).map((r) => r.output)).toEqual(more.map((r) => r.output));

    const search = `/v2/experiments/${e.id}/runs/search`;
    const everything = await asAdmin("POST", search, {});
    expect(everything.experiment_runs.map((r: Json) => r.id)).toEqual(runs.map((r) => r.id));
    expect(everything.pagination).toEqual({ has_more: false });
    const noBody = await api.req("POST", search);
    expect(noBody.status).toBe(200);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await asAdmin("POST", search, { limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...(page.experiment_runs as Json[]).map((r) => r.id as string));
      cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
    } while (cursor);
    expect(seen).toEqual(runs.map((r) => r.id));
    expectProblem(
      await api.req("POST", search, { body: { filter: "  " } }),
      400,
      "invalid-request",
    );
    const first = await asAdmin("POST", search, { limit: 1 });
    expectProblem(
      await api.req("POST", search, {
        body: { filter: "output = 'x'", cursor: first.pagination.next_cursor },
      }),
      400,
      "invalid-request",
    );
  });
});

describe("edges", () => {
  const inSpace = (over: Json = {}) => ({
    name: unique(),
    space_id: spaceId,
    experiment_runs: [{ output: "o" }],
    ...over,
  });
  const create = (body: Json) => api.req("POST", "/v2/experiments", { body });
  const runs = (n: number) => Array.from({ length: n }, (_, i) => ({ output: `o${i}`, i }));

  it("takes 1 to 1000 runs per create and insert", async () => {
    expectProblem(await create(inSpace({ experiment_runs: [] })), 422, "validation-error");
    expectProblem(await create(inSpace({ experiment_runs: runs(1001) })), 422, "validation-error");
    const one = await create(inSpace({ experiment_runs: runs(1) }));
    expect(one.status).toBe(201);
    const thousand = await create(inSpace({ experiment_runs: runs(1000) }));
    expect(thousand.status).toBe(201);
    const id = thousand.body.id as string;
    const { runs: listed, pages } = await allRuns(id);
    expect(listed).toHaveLength(1000);
    expect(pages).toBe(2);
    expect(listed.map((r) => r.i)).toEqual(runs(1000).map((r) => r.i));

    const path = `/v2/experiments/${one.body.id}/runs`;
    expectProblem(
      await api.req("POST", path, { body: { experiment_runs: [] } }),
      422,
      "validation-error",
    );
    expectProblem(
      await api.req("POST", path, { body: { experiment_runs: runs(1001) } }),
      422,
      "validation-error",
    );
    const appended = await api.req("POST", path, { body: { experiment_runs: runs(1000) } });
    expect(appended.status).toBe(201);
    expect(appended.body.run_ids).toHaveLength(1000);
    expect((await allRuns(one.body.id as string)).runs).toHaveLength(1001);
  });

  it("takes create and insert bodies of up to 8 MiB; a larger one is 413", async () => {
    // Ten runs of 800 KiB each: under the service's per-run limit, over the default 1 MiB.
    const big = Array.from({ length: 10 }, (_, i) => ({ output: "x".repeat(800 * 1024), i }));
    const ok = await create(inSpace({ experiment_runs: big }));
    expect(ok.status).toBe(201);
    const { runs: listed } = await allRuns(ok.body.id as string);
    expect(listed.map((r) => (r.output as string).length)).toEqual(Array(10).fill(800 * 1024));
    const appended = await api.req("POST", `/v2/experiments/${ok.body.id}/runs`, {
      body: { experiment_runs: big },
    });
    expect(appended.status).toBe(201);
    const tooBig = [{ output: "x".repeat(8 * MiB) }];
    expectProblem(await create(inSpace({ experiment_runs: tooBig })), 413, "payload-too-large");
    expectProblem(
      await api.req("POST", `/v2/experiments/${ok.body.id}/runs`, {
        body: { experiment_runs: tooBig },
      }),
      413,
      "payload-too-large",
    );
  });

  it("takes names of up to 255 characters without a double quote or backslash, once", async () => {
    const long = `${unique()}-`.padEnd(255, "n");
    const ok = await create(inSpace({ name: long }));
    expect([ok.status, ok.body.name]).toEqual([201, long]);
    expectProblem(await create(inSpace({ name: long })), 409, "resource-conflict");
    expectProblem(await create(inSpace({ name: `${long}n` })), 422, "validation-error");
    const emoji = "🚀".repeat(255);
    expect((await create(inSpace({ name: emoji }))).status).toBe(201);
    for (const name of ["", "   ", 'say "hi"', "back\\slash"])
      expectProblem(await create(inSpace({ name })), 422, "validation-error");
  });

  it("wants exactly one of dataset_id and space_id, and run examples only on a dataset", async () => {
    const d = await freshDataset(helpers);
    const onDataset = (over: Json = {}) => ({
      name: unique(),
      dataset_id: d.id,
      experiment_runs: [{ example_id: d.exampleIds[0], output: "o" }],
      ...over,
    });
    expect((await create(onDataset())).status).toBe(201);
    expectProblem(await create(onDataset({ space_id: spaceId })), 422, "validation-error");
    expectProblem(
      await create({ name: unique(), experiment_runs: [{ output: "o" }] }),
      422,
      "validation-error",
    );
    // On a dataset each run names one of its examples; in a space none does.
    expectProblem(
      await create(onDataset({ experiment_runs: [{ output: "o" }] })),
      422,
      "validation-error",
    );
    for (const example_id of ["example_001", publicId("DatasetExample", NOWHERE)]) {
      const res = await create(onDataset({ experiment_runs: [{ example_id, output: "o" }] }));
      expectProblem(res, 422, "validation-error");
      expect(res.body.detail).toMatch(/experiment_runs\[0\]\.example_id/);
    }
    expectProblem(
      await create(inSpace({ experiment_runs: [{ example_id: d.exampleIds[0], output: "o" }] })),
      422,
      "validation-error",
    );
    for (const field of ["id", "created_at", "updated_at", "annotations"])
      expectProblem(
        await create(inSpace({ experiment_runs: [{ output: "o", [field]: "x" }] })),
        422,
        "validation-error",
      );
    // Unknown or unreadable dataset and space: 404.
    expectProblem(
      await create(onDataset({ dataset_id: publicId("Dataset", NOWHERE) })),
      404,
      "resource-not-found",
    );
    expectProblem(
      await create(inSpace({ space_id: publicId("Space", NOWHERE) })),
      404,
      "resource-not-found",
    );

    // Runs appended later follow the same rule, decided by the experiment.
    const spaceOnly = (await create(inSpace())).body.id as string;
    expectProblem(
      await api.req("POST", `/v2/experiments/${spaceOnly}/runs`, {
        body: { experiment_runs: [{ example_id: d.exampleIds[0], output: "o" }] },
      }),
      422,
      "validation-error",
    );
    const withDataset = (await create(onDataset())).body.id as string;
    expectProblem(
      await api.req("POST", `/v2/experiments/${withDataset}/runs`, {
        body: { experiment_runs: [{ output: "o" }] },
      }),
      422,
      "validation-error",
    );
  });
});
