import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AmbiguousNameError,
  annotateDatasetExamples,
  annotateExperimentRuns,
  appendExamples,
  appendExperimentRuns,
  createCategoricalAnnotationConfig,
  createClient,
  createDataset,
  createExperiment,
  deleteDataset,
  deleteDatasetExamples,
  deleteExperiment,
  getDataset,
  getExperiment,
  listDatasetExamples,
  listDatasets,
  listExperimentRuns,
  listExperiments,
  NotFoundError,
  ResolutionError,
  updateDataset,
  updateExamples,
  type DatasetExample,
  type ExperimentRun,
} from "@arizeai/ax-client";
import { expectProblem, startApi, type Api } from "./support.ts";

// The issue: "The TypeScript client does the same" as the Python SDK for datasets and
// experiments. Every datasets and experiments function that @arizeai/ax-client 1.28.0 exports is
// driven here against the whole stack, and what it reads back is compared with what was written.
// Annotations are written with annotateDatasetExamples / annotateExperimentRuns (202).

let api: Api;
let spaceId: string;
let spaceName: string;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });
const typeOf = (id: string) => Buffer.from(id, "base64").toString().split(":")[0];

/** The user-defined fields of an example or run: everything but the system-managed ones. */
function userFields(e: DatasetExample | ExperimentRun): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, annotations: _a, ...fields } = e;
  return fields;
}

const EXAMPLES = [
  { question: "What is 2+2?", answer: "4", topic: "math", difficulty: 1, verified: true },
  { question: "Capital of Spain?", answer: "Madrid", topic: "geography", difficulty: 2 },
  { question: "Largest planet?", answer: "Jupiter", topic: "astronomy", verified: false },
];

/** A fresh categorical annotation config ("good"/"bad") in the space; returns its name. */
async function annotationConfig(): Promise<string> {
  const name = unique("quality");
  await createCategoricalAnnotationConfig({
    client: ax(),
    space: spaceId,
    name,
    values: [
      { label: "good", score: 1 },
      { label: "bad", score: 0 },
    ],
  });
  return name;
}

beforeAll(async () => {
  process.env.DISABLE_PRERELEASE_WARNING = "true";
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
  spaceName = spaces.body.spaces[0].name;
}, 180_000);
afterAll(() => api?.stop());

describe("datasets through @arizeai/ax-client", () => {
  it("createDataset from a list of examples (space by name and by id); values read back equal", async () => {
    const client = ax();
    const name = unique("ds-create");
    const created = await createDataset({ client, space: spaceName, name, examples: EXAMPLES });
    expect(created).toEqual({
      id: expect.any(String),
      name,
      spaceId,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(typeOf(created.id)).toBe("Dataset");
    expect(Number.isNaN(created.createdAt.getTime())).toBe(false);
    expect(Math.abs(created.createdAt.getTime() - Date.now())).toBeLessThan(5 * 60_000);

    const page = await listDatasetExamples({ client, dataset: created.id });
    expect(page.data.map(userFields)).toEqual(EXAMPLES);
    expect(page.data.every((e) => typeOf(e.id) === "DatasetExample")).toBe(true);
    expect(page.data.every((e) => e.createdAt instanceof Date)).toBe(true);
    expect(page.pagination).toEqual({ nextCursor: undefined, hasMore: false });

    const byId = await createDataset({
      client,
      space: spaceId,
      name: unique("ds-create"),
      examples: [{ only: "one" }],
    });
    expect(byId.spaceId).toBe(spaceId);
    const one = await listDatasetExamples({ client, dataset: byId.id });
    expect(one.data.map(userFields)).toEqual([{ only: "one" }]);
  });

  it("createDataset: any JSON value and an awkward name survive the round trip", async () => {
    const client = ax();
    const name = `${unique("ds")} ü/🚀 & ?x=1#frag`;
    const examples = [
      {
        text: 'naïve café 🚀 "quoted" \n newline',
        nothing: null,
        nested: { a: [1, "two", { three: 3.5 }], empty: {} },
        list: [true, false, null],
        big: 2 ** 40,
        negative: -0.25,
      },
    ];
    const d = await createDataset({ client, space: spaceId, name, examples });
    expect(d.name).toBe(name);
    expect((await getDataset({ client, dataset: name, space: spaceId })).id).toBe(d.id);
    const page = await listDatasetExamples({ client, dataset: name, space: spaceName });
    expect(page.data.map(userFields)).toEqual(examples);
  });

  it("createDataset: a name taken in the space is rejected, examples with system fields too", async () => {
    const client = ax();
    const name = unique("ds-dup");
    await createDataset({ client, space: spaceId, name, examples: EXAMPLES });
    await expect(
      createDataset({ client, space: spaceId, name, examples: EXAMPLES }),
    ).rejects.toThrow(/HTTP 409/);
    await expect(
      createDataset({
        client,
        space: spaceId,
        name: unique("ds-bad"),
        // A system-managed field on input is rejected, as the client's docs promise.
        examples: [{ question: "q", id: "ex_1" }],
      }),
    ).rejects.toThrow(/HTTP 422/);
    await expect(
      createDataset({ client, space: "no-such-space-anywhere", name, examples: EXAMPLES }),
    ).rejects.toBeInstanceOf(ResolutionError);
  });

  it("listDatasets by space id, space name and name filter, page by page", async () => {
    const client = ax();
    const prefix = unique("ds-list");
    const ids: string[] = [];
    for (const i of [1, 2, 3])
      ids.push(
        (
          await createDataset({
            client,
            space: spaceId,
            name: `${prefix}-${i}`,
            examples: EXAMPLES,
          })
        ).id,
      );

    const byName = await listDatasets({ client, space: spaceId, name: prefix });
    // Newest first.
    expect(byName.data.map((d) => d.id)).toEqual([...ids].reverse());
    expect(byName.data.map((d) => d.name)).toEqual([3, 2, 1].map((i) => `${prefix}-${i}`));
    expect(byName.data.every((d) => d.spaceId === spaceId && d.versions === undefined)).toBe(true);
    expect(byName.pagination.hasMore).toBe(false);

    const bySpaceName = await listDatasets({ client, space: spaceName, name: prefix });
    expect(bySpaceName.data.map((d) => d.id)).toEqual([...ids].reverse());
    // The name filter is a case-insensitive substring.
    const upper = await listDatasets({ client, name: prefix.toUpperCase() });
    expect(upper.data.map((d) => d.id)).toEqual([...ids].reverse());

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listDatasets({ client, space: spaceId, name: prefix, limit: 2, cursor });
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((d) => d.id));
      expect(page.pagination.hasMore).toBe(page.pagination.nextCursor !== undefined);
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([...ids].reverse());

    const everything = await listDatasets({ client, limit: 100 });
    expect(everything.data.map((d) => d.id)).toEqual(expect.arrayContaining(ids));
  });

  it("getDataset by id and by name within a space, with its versions", async () => {
    const client = ax();
    const name = unique("ds-get");
    const created = await createDataset({ client, space: spaceId, name, examples: EXAMPLES });
    const got = await getDataset({ client, dataset: created.id });
    expect(got).toMatchObject({ id: created.id, name, spaceId });
    expect(got.createdAt.getTime()).toBe(created.createdAt.getTime());
    expect(got.versions).toHaveLength(1);
    expect(got.versions![0]).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      datasetId: created.id,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(typeOf(got.versions![0]!.id)).toBe("DatasetVersion");
    expect(await getDataset({ client, dataset: name, space: spaceId })).toEqual(got);
    expect(await getDataset({ client, dataset: name, space: spaceName })).toEqual(got);
    await expect(getDataset({ client, dataset: name })).rejects.toBeInstanceOf(ResolutionError);
    await expect(
      getDataset({ client, dataset: unique("ds-missing"), space: spaceId }),
    ).rejects.toBeInstanceOf(ResolutionError);
  });

  it("listDatasetExamples pages in insertion order and reads a given version", async () => {
    const client = ax();
    const examples = Array.from({ length: 5 }, (_, i) => ({
      i,
      text: `example ${i}`,
      even: i % 2 === 0,
    }));
    const d = await createDataset({ client, space: spaceId, name: unique("ds-ex"), examples });
    const versionId = (await getDataset({ client, dataset: d.id })).versions![0]!.id;
    const seen: DatasetExample[] = [];
    let cursor: string | undefined;
    do {
      const page = await listDatasetExamples({ client, dataset: d.id, limit: 2, cursor });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.map(userFields)).toEqual(examples);
    expect(new Set(seen.map((e) => e.id)).size).toBe(5);

    const byVersion = await listDatasetExamples({
      client,
      dataset: d.name,
      space: spaceId,
      datasetVersionId: versionId,
    });
    expect(byVersion.data.map((e) => e.id)).toEqual(seen.map((e) => e.id));
  });

  it("appendExamples inserts into the latest version, or into a named one, in place", async () => {
    const client = ax();
    const d = await createDataset({
      client,
      space: spaceId,
      name: unique("ds-append"),
      examples: EXAMPLES,
    });
    const v1 = (await getDataset({ client, dataset: d.id })).versions![0]!.id;
    const added = [
      { question: "3+3?", answer: "6", topic: "math" },
      { question: "Capital of France?", answer: "Paris", topic: "geography", difficulty: 1 },
    ];
    const res = await appendExamples({ client, dataset: d.id, examples: added });
    expect(res).toEqual({
      id: d.id,
      name: d.name,
      spaceId,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
      datasetVersionId: v1,
      exampleIds: [expect.any(String), expect.any(String)],
    });
    const after = await listDatasetExamples({ client, dataset: d.id });
    expect(after.data.map(userFields)).toEqual([...EXAMPLES, ...added]);
    expect(after.data.slice(3).map((e) => e.id)).toEqual(res.exampleIds);
    // No new version: appending is in place.
    expect((await getDataset({ client, dataset: d.id })).versions!.map((v) => v.id)).toEqual([v1]);

    const named = await appendExamples({
      client,
      dataset: d.name,
      space: spaceName,
      datasetVersionId: v1,
      examples: [{ question: "last" }],
    });
    expect(named.datasetVersionId).toBe(v1);
    const last = await listDatasetExamples({ client, dataset: d.id, datasetVersionId: v1 });
    expect(last.data.map(userFields).at(-1)).toEqual({ question: "last" });
    expect(last.data.at(-1)!.id).toBe(named.exampleIds[0]);

    await expect(
      appendExamples({ client, dataset: d.id, examples: [{ q: 1, created_at: "2026-01-01" }] }),
    ).rejects.toThrow(/HTTP 422/);
  });

  it("updateExamples in place merges fields into the same version", async () => {
    const client = ax();
    const d = await createDataset({
      client,
      space: spaceId,
      name: unique("ds-upd"),
      examples: EXAMPLES,
    });
    const v1 = (await getDataset({ client, dataset: d.id })).versions![0]!.id;
    const before = await listDatasetExamples({ client, dataset: d.id });
    const [first, second] = before.data;
    const res = await updateExamples({
      client,
      dataset: d.id,
      examples: [
        { id: first!.id, answer: "four", reviewed: true },
        { id: second!.id, difficulty: 5 },
      ],
    });
    expect(res).toMatchObject({ id: d.id, name: d.name, spaceId, datasetVersionId: v1 });
    expect([...res.exampleIds].sort()).toEqual([first!.id, second!.id].sort());

    const after = await listDatasetExamples({ client, dataset: d.id });
    expect(after.data.map((e) => e.id)).toEqual(before.data.map((e) => e.id));
    expect(after.data.map(userFields)).toEqual([
      { ...EXAMPLES[0], answer: "four", reviewed: true },
      { ...EXAMPLES[1], difficulty: 5 },
      EXAMPLES[2],
    ]);
    expect((await getDataset({ client, dataset: d.id })).versions!.map((v) => v.id)).toEqual([v1]);
  });

  it("updateExamples into a new version leaves the old version unchanged", async () => {
    const client = ax();
    const d = await createDataset({
      client,
      space: spaceId,
      name: unique("ds-ver"),
      examples: EXAMPLES,
    });
    const v1 = (await getDataset({ client, dataset: d.id })).versions![0]!;
    const original = await listDatasetExamples({ client, dataset: d.id });
    const target = original.data[1]!;

    const res = await updateExamples({
      client,
      dataset: d.name,
      space: spaceId,
      datasetVersionId: v1.id,
      examples: [{ id: target.id, answer: "Madrid, Spain", checked: "yes" }],
      newVersion: "v2-corrected",
    });
    expect(res.id).toBe(d.id);
    expect(res.datasetVersionId).not.toBe(v1.id);
    expect(typeOf(res.datasetVersionId)).toBe("DatasetVersion");
    expect(res.exampleIds).toHaveLength(1);

    const got = await getDataset({ client, dataset: d.id });
    // Newest first.
    expect(got.versions!.map((v) => [v.id, v.name])).toEqual([
      [res.datasetVersionId, "v2-corrected"],
      [v1.id, v1.name],
    ]);
    expect(got.versions!.every((v) => v.datasetId === d.id)).toBe(true);

    // The old version is unchanged, field for field.
    const old = await listDatasetExamples({ client, dataset: d.id, datasetVersionId: v1.id });
    expect(old.data.map(userFields)).toEqual(EXAMPLES);
    expect(old.data.map((e) => e.id)).toEqual(original.data.map((e) => e.id));

    // The new version (also the latest) has the update and every other example.
    const latest = await listDatasetExamples({ client, dataset: d.id });
    const v2 = await listDatasetExamples({
      client,
      dataset: d.id,
      datasetVersionId: res.datasetVersionId,
    });
    expect(latest.data).toEqual(v2.data);
    expect(v2.data.map(userFields)).toEqual([
      EXAMPLES[0],
      { ...EXAMPLES[1], answer: "Madrid, Spain", checked: "yes" },
      EXAMPLES[2],
    ]);
    expect(res.exampleIds).toEqual([v2.data[1]!.id]);

    // A version name is unique within the dataset.
    await expect(
      updateExamples({
        client,
        dataset: d.id,
        examples: [{ id: v2.data[0]!.id, answer: "4!" }],
        newVersion: "v2-corrected",
      }),
    ).rejects.toThrow(/HTTP 409/);

    // Writing to the old version by id, in place, leaves the new one alone.
    const appended = await appendExamples({
      client,
      dataset: d.id,
      datasetVersionId: v1.id,
      examples: [{ question: "only in v1" }],
    });
    expect(appended.datasetVersionId).toBe(v1.id);
    await updateExamples({
      client,
      dataset: d.id,
      datasetVersionId: v1.id,
      examples: [{ id: original.data[0]!.id, topic: "arithmetic" }],
    });
    const v1Now = await listDatasetExamples({ client, dataset: d.id, datasetVersionId: v1.id });
    expect(v1Now.data.map(userFields)).toEqual([
      { ...EXAMPLES[0], topic: "arithmetic" },
      EXAMPLES[1],
      EXAMPLES[2],
      { question: "only in v1" },
    ]);
    const v2Now = await listDatasetExamples({ client, dataset: d.id });
    expect(v2Now.data).toEqual(v2.data);

    // An experiment made by the client (which cannot name a version) runs on the latest.
    const exp = await createExperiment({
      client,
      experimentName: unique("exp-on-v2"),
      dataset: d.id,
      experimentRuns: [{ exampleId: v2.data[1]!.id, output: "Madrid" }],
    });
    expect(exp.datasetVersionId).toBe(res.datasetVersionId);
  });

  it("deleteDatasetExamples removes from one version only, reports the rest, is idempotent", async () => {
    const client = ax();
    const d = await createDataset({
      client,
      space: spaceId,
      name: unique("ds-del"),
      examples: EXAMPLES,
    });
    const v1 = (await getDataset({ client, dataset: d.id })).versions![0]!.id;
    const v1Examples = (await listDatasetExamples({ client, dataset: d.id })).data;
    const v2 = await updateExamples({
      client,
      dataset: d.id,
      examples: [{ id: v1Examples[2]!.id, topic: "space" }],
      newVersion: "v2",
    });
    const v2Examples = (
      await listDatasetExamples({ client, dataset: d.id, datasetVersionId: v2.datasetVersionId })
    ).data;
    const gone = v2Examples[0]!.id;
    const missing = Buffer.from("DatasetExample:0192f4a0-0000-7000-8000-00000000dead").toString(
      "base64",
    );

    const res = await deleteDatasetExamples({
      client,
      dataset: d.name,
      space: spaceName,
      datasetVersionId: v2.datasetVersionId,
      examples: [gone, missing],
    });
    expect(res).toEqual({
      completed: true,
      deletedExampleIds: [gone],
      notDeletedExampleIds: [missing],
    });

    const after = await listDatasetExamples({
      client,
      dataset: d.id,
      datasetVersionId: v2.datasetVersionId,
    });
    expect(after.data.map((e) => e.id)).toEqual(v2Examples.slice(1).map((e) => e.id));
    expect(after.data.map(userFields)).toEqual([EXAMPLES[1], { ...EXAMPLES[2], topic: "space" }]);
    // The first version keeps all three.
    const old = await listDatasetExamples({ client, dataset: d.id, datasetVersionId: v1 });
    expect(old.data.map(userFields)).toEqual(EXAMPLES);

    const again = await deleteDatasetExamples({
      client,
      dataset: d.id,
      datasetVersionId: v2.datasetVersionId,
      examples: [gone],
    });
    expect(again).toEqual({ completed: true, deletedExampleIds: [], notDeletedExampleIds: [gone] });

    await expect(
      deleteDatasetExamples({ client, dataset: d.id, datasetVersionId: v1, examples: [] }),
    ).rejects.toThrow("examples must not be empty");
  });

  it("updateDataset renames; the dataset resolves by its new name only", async () => {
    const client = ax();
    const name = unique("ds-rename");
    const d = await createDataset({ client, space: spaceId, name, examples: EXAMPLES });
    const renamed = await updateDataset({
      client,
      dataset: name,
      space: spaceId,
      name: `${name}-new`,
    });
    expect(renamed).toMatchObject({ id: d.id, name: `${name}-new`, spaceId });
    expect(renamed.createdAt.getTime()).toBe(d.createdAt.getTime());
    expect(renamed.updatedAt.getTime()).toBeGreaterThanOrEqual(d.updatedAt.getTime());
    expect((await getDataset({ client, dataset: d.id })).name).toBe(`${name}-new`);
    expect(
      (await listDatasets({ client, space: spaceId, name: `${name}-new` })).data.map((x) => x.id),
    ).toEqual([d.id]);
    // The examples are untouched.
    expect((await listDatasetExamples({ client, dataset: d.id })).data.map(userFields)).toEqual(
      EXAMPLES,
    );
  });

  it("deleteDataset by name and by id; the list and get reflect it", async () => {
    const client = ax();
    const prefix = unique("ds-gone");
    const a = await createDataset({
      client,
      space: spaceId,
      name: `${prefix}-a`,
      examples: EXAMPLES,
    });
    const b = await createDataset({
      client,
      space: spaceId,
      name: `${prefix}-b`,
      examples: EXAMPLES,
    });
    expect((await listDatasets({ client, name: prefix })).data.map((d) => d.id)).toEqual([
      b.id,
      a.id,
    ]);

    await deleteDataset({ client, dataset: `${prefix}-a`, space: spaceName });
    expect((await listDatasets({ client, name: prefix })).data.map((d) => d.id)).toEqual([b.id]);
    await expect(getDataset({ client, dataset: a.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(listDatasetExamples({ client, dataset: a.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );

    await deleteDataset({ client, dataset: b.id });
    expect((await listDatasets({ client, name: prefix })).data).toEqual([]);
    await expect(deleteDataset({ client, dataset: b.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      getDataset({ client, dataset: `${prefix}-b`, space: spaceId }),
    ).rejects.toBeInstanceOf(ResolutionError);
  });

  // annotateDatasetExamples: POST /v2/datasets/{dataset_id}/examples/annotate, 202; the
  // annotations read back on listDatasetExamples.
  it("annotateDatasetExamples upserts by config name; listDatasetExamples shows them", async () => {
    const client = ax();
    const d = await createDataset({
      client,
      space: spaceId,
      name: unique("ds-annot"),
      examples: EXAMPLES,
    });
    const [first] = (await listDatasetExamples({ client, dataset: d.id })).data;
    const config = await annotationConfig();
    await annotateDatasetExamples({
      client,
      dataset: d.id,
      annotations: [{ recordId: first!.id, values: [{ name: config, label: "good" }] }],
    });
    // 202: the write may become visible a moment later.
    await expect
      .poll(
        async () => (await listDatasetExamples({ client, dataset: d.id })).data[0]!.annotations,
        { timeout: 5_000 },
      )
      .toEqual([
        expect.objectContaining({
          name: config,
          label: "good",
          // The admin, shown with its e-mail as the public Annotation has it.
          annotator: expect.objectContaining({ email: "admin@argus.local" }),
        }),
      ]);
  });
});

describe("experiments through @arizeai/ax-client", () => {
  async function datasetWithExamples(): Promise<{
    id: string;
    name: string;
    versionId: string;
    exampleIds: string[];
  }> {
    const client = ax();
    const d = await createDataset({
      client,
      space: spaceId,
      name: unique("exp-ds"),
      examples: EXAMPLES,
    });
    const versionId = (await getDataset({ client, dataset: d.id })).versions![0]!.id;
    const exampleIds = (await listDatasetExamples({ client, dataset: d.id })).data.map((e) => e.id);
    return { id: d.id, name: d.name, versionId, exampleIds };
  }

  it("createExperiment on a dataset with runs; getExperiment and listExperimentRuns read them back", async () => {
    const client = ax();
    const d = await datasetWithExamples();
    const name = unique("exp");
    const runs = d.exampleIds.map((exampleId, i) => ({
      exampleId,
      output: `answer ${i}`,
      latency_ms: 10 + i,
      correct: i !== 1,
      "eval.correctness.label": i === 1 ? "wrong" : "right",
    }));
    const created = await createExperiment({
      client,
      experimentName: name,
      dataset: d.name,
      space: spaceName,
      experimentRuns: runs,
    });
    expect(created).toMatchObject({
      id: expect.any(String),
      name,
      spaceId,
      datasetId: d.id,
      datasetVersionId: d.versionId,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(typeOf(created.id)).toBe("Experiment");
    expect(Number.isNaN(created.createdAt.getTime())).toBe(false);

    const byId = await getExperiment({ client, experiment: created.id });
    expect(byId).toEqual(created);
    expect(await getExperiment({ client, experiment: name, dataset: d.id })).toEqual(created);
    expect(
      await getExperiment({ client, experiment: name, dataset: d.name, space: spaceId }),
    ).toEqual(created);
    expect(await getExperiment({ client, experiment: name, space: spaceName })).toEqual(created);

    const listed = await listExperimentRuns({ client, experiment: created.id });
    expect(listed.pagination).toEqual({ nextCursor: undefined, hasMore: false });
    expect(listed.data.every((r) => typeOf(r.id) === "ExperimentRun")).toBe(true);
    expect(listed.data.map((r) => r.exampleId)).toEqual(d.exampleIds);
    expect(
      listed.data.map(({ id: _id, exampleId, output, latency_ms, correct, ...rest }) => ({
        exampleId,
        output,
        latency_ms,
        correct,
        label: rest["eval.correctness.label"],
      })),
    ).toEqual(
      runs.map(({ exampleId, output, latency_ms, correct, ...rest }) => ({
        exampleId,
        output,
        latency_ms,
        correct,
        label: rest["eval.correctness.label"],
      })),
    );

    // By name, through the dataset, page by page.
    const seen: ExperimentRun[] = [];
    let cursor: string | undefined;
    do {
      const page = await listExperimentRuns({
        client,
        experiment: name,
        dataset: d.id,
        limit: 2,
        cursor,
      });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.map((r) => r.id)).toEqual(listed.data.map((r) => r.id));
  });

  it("createExperiment without a dataset, in a space; its runs have no exampleId", async () => {
    const client = ax();
    const name = unique("exp-standalone");
    const created = await createExperiment({
      client,
      experimentName: name,
      space: spaceId,
      experimentRuns: [
        { output: "4", model: "gpt-4o-mini" },
        { output: "Madrid", error: null, tokens: 12 },
      ],
    });
    expect(created).toMatchObject({ name, spaceId });
    expect(created.datasetId ?? null).toBeNull();
    expect(created.datasetVersionId ?? null).toBeNull();
    expect(await getExperiment({ client, experiment: name, space: spaceId })).toEqual(created);

    const runs = await listExperimentRuns({ client, experiment: name, space: spaceName });
    expect(runs.data.map((r) => r.exampleId ?? null)).toEqual([null, null]);
    expect(runs.data.map((r) => r.output)).toEqual(["4", "Madrid"]);
    // Exactly the fields written, nothing more (an absent or null exampleId reads as "none").
    expect(runs.data.map(({ id: _id, exampleId: _e, ...rest }) => rest)).toEqual([
      { output: "4", model: "gpt-4o-mini" },
      { output: "Madrid", error: null, tokens: 12 },
    ]);

    await expect(
      createExperiment({ client, experimentName: name, experimentRuns: [] }),
    ).rejects.toThrow("Either 'dataset' or 'space' must be provided.");
  });

  it("listExperiments by dataset, by space and across spaces, page by page", async () => {
    const client = ax();
    const d = await datasetWithExamples();
    const prefix = unique("exp-list");
    const ids: string[] = [];
    for (const i of [1, 2, 3])
      ids.push(
        (
          await createExperiment({
            client,
            experimentName: `${prefix}-${i}`,
            dataset: d.id,
            experimentRuns: [{ exampleId: d.exampleIds[0]!, output: `o${i}` }],
          })
        ).id,
      );
    const standalone = await createExperiment({
      client,
      experimentName: `${prefix}-standalone`,
      space: spaceId,
      experimentRuns: [{ output: "x" }],
    });

    const byDataset = await listExperiments({ client, dataset: d.name, space: spaceName });
    // Newest first, only this dataset's.
    expect(byDataset.data.map((e) => e.id)).toEqual([...ids].reverse());
    expect(
      byDataset.data.every((e) => e.datasetId === d.id && e.datasetVersionId === d.versionId),
    ).toBe(true);
    expect(byDataset.data.map((e) => e.name)).toEqual([3, 2, 1].map((i) => `${prefix}-${i}`));

    const bySpace = await listExperiments({ client, space: spaceName, limit: 100 });
    expect(bySpace.data.map((e) => e.id)).toEqual(expect.arrayContaining([...ids, standalone.id]));
    expect(bySpace.data.every((e) => e.spaceId === spaceId)).toBe(true);
    const all = await listExperiments({ client, limit: 100 });
    expect(all.data.map((e) => e.id)).toEqual(expect.arrayContaining([...ids, standalone.id]));

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listExperiments({ client, dataset: d.id, limit: 2, cursor });
      pages++;
      seen.push(...page.data.map((e) => e.id));
      expect(page.pagination.hasMore).toBe(page.pagination.nextCursor !== undefined);
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([...ids].reverse());
  });

  it("appendExperimentRuns adds runs in order and returns their ids", async () => {
    const client = ax();
    const d = await datasetWithExamples();
    const name = unique("exp-append");
    const created = await createExperiment({
      client,
      experimentName: name,
      dataset: d.id,
      experimentRuns: [{ exampleId: d.exampleIds[0]!, output: "first" }],
    });
    const res = await appendExperimentRuns({
      client,
      experiment: name,
      dataset: d.id,
      experimentRuns: [
        { exampleId: d.exampleIds[1]!, output: "second", score: 0.5 },
        { exampleId: d.exampleIds[2]!, output: "third", score: 1 },
      ],
    });
    expect(res).toMatchObject({ id: created.id, name, datasetId: d.id, spaceId });
    expect(res.runIds).toHaveLength(2);
    const runs = await listExperimentRuns({ client, experiment: created.id });
    expect(runs.data.map((r) => [r.exampleId, r.output, r.score])).toEqual([
      [d.exampleIds[0], "first", undefined],
      [d.exampleIds[1], "second", 0.5],
      [d.exampleIds[2], "third", 1],
    ]);
    expect(runs.data.slice(1).map((r) => r.id)).toEqual(res.runIds);

    // A run must name an example of the experiment's dataset version.
    await expect(
      appendExperimentRuns({
        client,
        experiment: created.id,
        experimentRuns: [{ output: "orphan" }],
      }),
    ).rejects.toThrow(/HTTP 422/);
  });

  it("experiment names are unique per dataset: by space alone a shared name is ambiguous", async () => {
    const client = ax();
    const d1 = await datasetWithExamples();
    const d2 = await datasetWithExamples();
    const name = unique("exp-shared");
    const on1 = await createExperiment({
      client,
      experimentName: name,
      dataset: d1.id,
      experimentRuns: [{ exampleId: d1.exampleIds[0]!, output: "one" }],
    });
    const on2 = await createExperiment({
      client,
      experimentName: name,
      dataset: d2.id,
      experimentRuns: [{ exampleId: d2.exampleIds[0]!, output: "two" }],
    });
    expect(on1.id).not.toBe(on2.id);
    expect((await getExperiment({ client, experiment: name, dataset: d2.id })).id).toBe(on2.id);
    const runs = await listExperimentRuns({ client, experiment: name, dataset: d1.id });
    expect(runs.data.map((r) => r.output)).toEqual(["one"]);
    await expect(
      getExperiment({ client, experiment: name, space: spaceId }),
    ).rejects.toBeInstanceOf(AmbiguousNameError);
    await expect(
      createExperiment({
        client,
        experimentName: name,
        dataset: d1.id,
        experimentRuns: [{ exampleId: d1.exampleIds[0]!, output: "again" }],
      }),
    ).rejects.toThrow(/HTTP 409/);
  });

  it("deleteExperiment by name and by id; lists and get reflect it, the dataset stays", async () => {
    const client = ax();
    const d = await datasetWithExamples();
    const prefix = unique("exp-del");
    const mk = (suffix: string) =>
      createExperiment({
        client,
        experimentName: `${prefix}-${suffix}`,
        dataset: d.id,
        experimentRuns: [{ exampleId: d.exampleIds[0]!, output: suffix }],
      });
    const a = await mk("a");
    const b = await mk("b");
    expect((await listExperiments({ client, dataset: d.id })).data.map((e) => e.id)).toEqual([
      b.id,
      a.id,
    ]);

    await deleteExperiment({ client, experiment: `${prefix}-a`, dataset: d.name, space: spaceId });
    expect((await listExperiments({ client, dataset: d.id })).data.map((e) => e.id)).toEqual([
      b.id,
    ]);
    await expect(getExperiment({ client, experiment: a.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(listExperimentRuns({ client, experiment: a.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );

    await deleteExperiment({ client, experiment: b.id });
    expect((await listExperiments({ client, dataset: d.id })).data).toEqual([]);
    await expect(deleteExperiment({ client, experiment: b.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      getExperiment({ client, experiment: `${prefix}-b`, dataset: d.id }),
    ).rejects.toBeInstanceOf(ResolutionError);
    // The dataset and its examples are untouched.
    expect((await listDatasetExamples({ client, dataset: d.id })).data.map((e) => e.id)).toEqual(
      d.exampleIds,
    );
  });

  // annotateExperimentRuns: POST /v2/experiments/{experiment_id}/runs/annotate, 202; the
  // annotations read back on listExperimentRuns.
  it("annotateExperimentRuns upserts by config name; listExperimentRuns shows them", async () => {
    const client = ax();
    const d = await datasetWithExamples();
    const created = await createExperiment({
      client,
      experimentName: unique("exp-annot"),
      dataset: d.id,
      experimentRuns: [{ exampleId: d.exampleIds[0]!, output: "4" }],
    });
    const [run] = (await listExperimentRuns({ client, experiment: created.id })).data;
    const config = await annotationConfig();
    await annotateExperimentRuns({
      client,
      experiment: created.id,
      annotations: [{ recordId: run!.id, values: [{ name: config, label: "good" }] }],
    });
    await expect
      .poll(
        async () =>
          (await listExperimentRuns({ client, experiment: created.id })).data[0]!.annotations,
        { timeout: 5_000 },
      )
      .toEqual([expect.objectContaining({ name: config, label: "good" })]);
  });
});

// The annotate rules over plain HTTP: names are annotation configs of the record's space,
// records are the parent's own, labels keep to a categorical config's labels.
describe("annotate: what the server refuses", () => {
  it("unknown config names and labels outside a config are 422; a foreign record is ignored", async () => {
    const d = await api.req("POST", "/v2/datasets", {
      body: { space_id: spaceId, name: unique("raw"), examples: EXAMPLES },
    });
    const ex = await api.req("GET", `/v2/datasets/${d.body.id}/examples`);
    const record = ex.body.examples[0].id as string;
    const config = await annotationConfig();
    const annotate = (values: object[], recordId = record) =>
      api.req("POST", `/v2/datasets/${d.body.id}/examples/annotate`, {
        body: { annotations: [{ record_id: recordId, values }] },
      });
    expect((await annotate([{ name: config, label: "good" }])).status).toBe(202);
    expectProblem(await annotate([{ name: "no such config", score: 1 }]), 422, "validation-error");
    expectProblem(
      await annotate([{ name: config, label: "not a label" }]),
      422,
      "validation-error",
    );
    // A record id that names no example is ignored, the rest written (the public API's
    // "Unmatched record IDs ... silently ignored. No error is returned").
    expect(
      (
        await annotate(
          [{ name: config, label: "good" }],
          Buffer.from("DatasetExample:0").toString("base64"),
        )
      ).status,
    ).toBe(202);
    // A later annotation of the same name keeps what it leaves out.
    expect((await annotate([{ name: config, text: "why" }])).status).toBe(202);
    const after = await api.req("GET", `/v2/datasets/${d.body.id}/examples`);
    expect(after.body.examples[0].annotations).toEqual([
      expect.objectContaining({ name: config, label: "good", text: "why" }),
    ]);
  });
});
