import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  createDataset,
  deleteDataset,
  deleteDatasetExamples,
  getDataset,
  listDatasetExamples,
  listDatasets,
  updateDataset,
} from "@arizeai/ax-client";
import { EXAMPLES, freshDataset } from "./authz-datasets.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

// Datasets end to end (spec "Dataset and dataset version", endpoints 7, 8 and 9): the gateway
// and the dataset service, driven over HTTP and with the official @arizeai/ax-client.

let api: Api;
let spaceId: string;
let spaceName: string;
let counter = 0;
const unique = () => `ds-${process.pid}-${++counter}`;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });
const publicId = (type: string, uuid: string) => Buffer.from(`${type}:${uuid}`).toString("base64");
const typeOf = (id: string) => Buffer.from(id, "base64").toString().split(":")[0];
const MiB = 1024 * 1024;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);
const helpers = {
  asAdmin,
  unique,
  freshSpace: async () => spaceId,
};
const examplesOf = async (id: string, query = "") =>
  (await asAdmin("GET", `/v2/datasets/${id}/examples?limit=500${query}`)).examples as Json[];

beforeAll(async () => {
  process.env.DISABLE_PRERELEASE_WARNING = "true";
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
  spaceName = spaces.body.spaces[0].name;
}, 120_000);
afterAll(() => api?.stop());

describe("datasets with @arizeai/ax-client", () => {
  it("creates, gets, lists, renames and deletes a dataset", async () => {
    const client = ax();
    const name = unique();
    const created = await createDataset({ client, space: spaceId, name, examples: EXAMPLES });
    expect(created).toEqual({
      id: expect.any(String),
      name,
      spaceId,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(typeOf(created.id)).toBe("Dataset");
    const got = await getDataset({ client, dataset: created.id });
    expect(got.versions).toHaveLength(1);
    expect(typeOf(got.versions![0]!.id)).toBe("DatasetVersion");
    expect(got.versions![0]!.datasetId).toBe(created.id);
    expect((await getDataset({ client, dataset: name, space: spaceId })).id).toBe(created.id);

    const listed = await listDatasets({ client, space: spaceName, name });
    expect(listed.data.map((d) => d.id)).toEqual([created.id]);

    const examples = await listDatasetExamples({ client, dataset: created.id });
    expect(examples.data.map(({ id: _id, createdAt: _c, updatedAt: _u, ...f }) => f)).toEqual(
      EXAMPLES,
    );
    expect(examples.data.every((e) => typeOf(e.id) === "DatasetExample")).toBe(true);

    const renamed = await updateDataset({ client, dataset: created.id, name: `${name}-2` });
    expect(renamed.name).toBe(`${name}-2`);

    const del = await deleteDatasetExamples({
      client,
      dataset: created.id,
      datasetVersionId: got.versions![0]!.id,
      examples: [examples.data[0]!.id],
    });
    expect(del).toEqual({
      completed: true,
      deletedExampleIds: [examples.data[0]!.id],
      notDeletedExampleIds: [],
    });

    await deleteDataset({ client, dataset: created.id });
    expectProblem(await api.req("GET", `/v2/datasets/${created.id}`), 404, "resource-not-found");
  });
});

describe("GET /v2/datasets/{dataset_id} (spec 9)", () => {
  it("returns the versions newest first, without examples", async () => {
    const d = await freshDataset(helpers);
    await asAdmin("PATCH", `/v2/datasets/${d.id}/examples`, {
      examples: [{ id: d.exampleIds[0], answer: "four" }],
      new_version: "second",
    });
    const got = await asAdmin("GET", `/v2/datasets/${d.id}`);
    expect(got.versions.map((v: Json) => v.name)).toEqual(["second", expect.any(String)]);
    expect(got.versions[1].id).toBe(d.versionId);
    expect(got).not.toHaveProperty("examples");
  });

  it("an unknown, malformed or foreign-type id is 404", async () => {
    for (const id of [
      publicId("Dataset", "0192f4a0-0000-7000-8000-00000000dead"),
      publicId("Project", "0192f4a0-0000-7000-8000-00000000dead"),
      "bm90LWFuLWlk",
    ])
      expectProblem(await api.req("GET", `/v2/datasets/${id}`), 404, "resource-not-found");
  });
});

describe("POST /v2/datasets", () => {
  it("is 201; a name taken in the space is 409", async () => {
    const name = unique();
    const body = { space_id: spaceId, name, examples: EXAMPLES };
    const res = await api.req("POST", "/v2/datasets", { body });
    expect(res.status).toBe(201);
    expectProblem(await api.req("POST", "/v2/datasets", { body }), 409, "resource-conflict");
  });

  it("rejects empty examples, empty objects and system fields with 422", async () => {
    for (const examples of [
      [],
      [{}],
      [{ q: 1, id: "ex_1" }],
      [{ q: 1, created_at: "2026-01-01T00:00:00Z" }],
      [{ q: 1 }, { q: 2, updated_at: "2026-01-01T00:00:00Z" }],
    ]) {
      const res = await api.req("POST", "/v2/datasets", {
        body: { space_id: spaceId, name: unique(), examples },
      });
      expectProblem(res, 422, "validation-error");
    }
    const res = await api.req("POST", "/v2/datasets", {
      body: { space_id: spaceId, name: unique(), examples: [{ q: 1, created_at: "x" }] },
    });
    expect(res.body.detail).toContain("created_at");
  });

  it("takes a body of up to 8 MiB; a larger one is 413", async () => {
    // Ten examples of 800 KiB each: under the service's per-example limit.
    const examples = Array.from({ length: 10 }, (_, i) => ({ i, text: "x".repeat(800 * 1024) }));
    const ok = await api.req("POST", "/v2/datasets", {
      body: { space_id: spaceId, name: unique(), examples },
    });
    expect(ok.status).toBe(201);
    const page = await examplesOf(ok.body.id);
    expect(page.map((e) => e.text.length)).toEqual(Array(10).fill(800 * 1024));
    const big = JSON.stringify({
      space_id: spaceId,
      name: unique(),
      examples: [{ text: "x".repeat(8 * MiB) }],
    });
    expectProblem(await api.req("POST", "/v2/datasets", { body: big }), 413, "payload-too-large");
  });
});

describe("examples: list, insert, update (spec 7), delete (spec 8), search", () => {
  it("lists oldest first across pages, keeping to the version of the first page", async () => {
    const d = await freshDataset(
      helpers,
      undefined,
      Array.from({ length: 5 }, (_, i) => ({ i, nested: { ü: [i, "🚀"] } })),
    );
    const first = await asAdmin("GET", `/v2/datasets/${d.id}/examples?limit=2`);
    expect(first.pagination.has_more).toBe(true);
    // A newer version appears between the pages; the cursor keeps to the first one.
    await asAdmin("PATCH", `/v2/datasets/${d.id}/examples`, {
      examples: [{ id: d.exampleIds[0], i: 100 }],
      new_version: "newer",
    });
    const seen = [...first.examples];
    let cursor = first.pagination.next_cursor as string | undefined;
    while (cursor) {
      const page = await asAdmin("GET", `/v2/datasets/${d.id}/examples?limit=2&cursor=${cursor}`);
      seen.push(...page.examples);
      cursor = page.pagination.next_cursor;
    }
    expect(seen.map((e) => e.i)).toEqual([0, 1, 2, 3, 4]);
    expect(seen[4].nested).toEqual({ ü: [4, "🚀"] });
    expect((await examplesOf(d.id)).map((e) => e.i)).toEqual([100, 1, 2, 3, 4]);
  });

  it("inserts into the latest version: 201 with the new ids", async () => {
    const d = await freshDataset(helpers);
    const res = await api.req("POST", `/v2/datasets/${d.id}/examples`, {
      body: { examples: [{ question: "3+3?", answer: "6" }] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: d.id, dataset_version_id: d.versionId });
    expect(res.body.example_ids).toHaveLength(1);
    expect((await examplesOf(d.id)).map((e) => e.id)).toEqual([
      ...d.exampleIds,
      res.body.example_ids[0],
    ]);
  });

  it("updates in place or into a new version; ids that match nothing are ignored", async () => {
    const d = await freshDataset(helpers);
    const inPlace = await asAdmin(
      "PATCH",
      `/v2/datasets/${d.id}/examples?dataset_version_id=${d.versionId}`,
      {
        examples: [
          { id: d.exampleIds[0], answer: "four", added: true },
          { id: "ex_unknown", answer: "x" },
        ],
      },
    );
    expect(inPlace).toMatchObject({
      dataset_version_id: d.versionId,
      example_ids: [d.exampleIds[0]],
    });
    const after = await examplesOf(d.id);
    expect(after[0]).toMatchObject({ question: "What is 2+2?", answer: "four", added: true });

    const next = await asAdmin("PATCH", `/v2/datasets/${d.id}/examples`, {
      examples: [{ id: d.exampleIds[1], answer: "Madrid!" }],
      new_version: "v2",
    });
    expect(next.dataset_version_id).not.toBe(d.versionId);
    expect((await examplesOf(d.id, `&dataset_version_id=${d.versionId}`))[1]!.answer).toBe(
      "Madrid",
    );
    expect(
      (await examplesOf(d.id, `&dataset_version_id=${next.dataset_version_id}`))[1]!.answer,
    ).toBe("Madrid!");
    // The same version name again is a conflict, and changes nothing.
    const again = await api.req("PATCH", `/v2/datasets/${d.id}/examples`, {
      body: { examples: [{ id: d.exampleIds[1], answer: "x" }], new_version: "v2" },
    });
    expectProblem(again, 409, "resource-conflict");
    expect((again.body as { detail: string }).detail).toBe(
      'the dataset already has a version named "v2"',
    );
    expect(
      (await examplesOf(d.id, `&dataset_version_id=${next.dataset_version_id}`))[1]!.answer,
    ).toBe("Madrid!");
    for (const bad of [[], [{ answer: "no id" }], [{ id: d.exampleIds[0], created_at: "x" }]])
      expectProblem(
        await api.req("PATCH", `/v2/datasets/${d.id}/examples`, { body: { examples: bad } }),
        422,
        "validation-error",
      );
  });

  it("deletes what it finds and lists every other requested id, idempotently", async () => {
    const d = await freshDataset(helpers);
    const body = {
      dataset_version_id: d.versionId,
      example_ids: [
        d.exampleIds[0],
        "not-an-id",
        publicId("DatasetExample", "0192f4a0-0000-7000-8000-00000000beef"),
      ],
    };
    const first = await asAdmin("DELETE", `/v2/datasets/${d.id}/examples`, body);
    expect(first).toEqual({
      completed: true,
      deleted_example_ids: [d.exampleIds[0]],
      not_deleted_example_ids: body.example_ids.slice(1),
    });
    const again = await asAdmin("DELETE", `/v2/datasets/${d.id}/examples`, body);
    expect(again).toEqual({
      completed: true,
      deleted_example_ids: [],
      not_deleted_example_ids: body.example_ids,
    });
    expect((await examplesOf(d.id)).map((e) => e.id)).toEqual([d.exampleIds[1]]);
    // No id that could name an example: nothing is deleted, but the target is still checked.
    const none = { dataset_version_id: d.versionId, example_ids: ["x", "y"] };
    expect(await asAdmin("DELETE", `/v2/datasets/${d.id}/examples`, none)).toEqual({
      completed: true,
      deleted_example_ids: [],
      not_deleted_example_ids: ["x", "y"],
    });
    const gone = await freshDataset(helpers);
    await asAdmin("DELETE", `/v2/datasets/${gone.id}`);
    expectProblem(
      await api.req("DELETE", `/v2/datasets/${gone.id}/examples`, {
        body: { dataset_version_id: gone.versionId, example_ids: ["x"] },
      }),
      404,
      "resource-not-found",
    );
    for (const bad of [
      { ...body, example_ids: [] },
      { ...body, example_ids: ["a", "a"] },
      { ...body, example_ids: [""] },
      { example_ids: ["a"] },
    ])
      expectProblem(
        await api.req("DELETE", `/v2/datasets/${d.id}/examples`, { body: bad }),
        422,
        "validation-error",
      );
    expectProblem(
      await api.req("DELETE", `/v2/datasets/${d.id}/examples`, {
        body: {
          ...body,
          dataset_version_id: publicId("DatasetVersion", "0192f4a0-0000-7000-8000-00000000beef"),
        },
      }),
      404,
      "resource-not-found",
    );
  });

  it("searches with a filter, the cursor in the body bound to the filter", async () => {
    const d = await freshDataset(
      helpers,
      undefined,
      Array.from({ length: 4 }, (_, i) => ({ i, topic: i % 2 ? "odd" : "even" })),
    );
    const path = `/v2/datasets/${d.id}/examples/search`;
    const first = await asAdmin("POST", path, { filter: "topic = 'even'", limit: 1 });
    expect(first.examples.map((e: Json) => e.i)).toEqual([0]);
    expect(first.pagination.has_more).toBe(true);
    const second = await asAdmin("POST", path, {
      filter: "topic = 'even'",
      limit: 1,
      cursor: first.pagination.next_cursor,
    });
    expect(second.examples.map((e: Json) => e.i)).toEqual([2]);
    expectProblem(
      await api.req("POST", path, {
        body: { filter: "topic = 'odd'", cursor: first.pagination.next_cursor },
      }),
      400,
      "invalid-request",
    );
    expect((await asAdmin("POST", path, {})).examples).toHaveLength(4);
    expectProblem(
      await api.req("POST", path, { body: { filter: "   " } }),
      422,
      "validation-error",
    );
  });
});
