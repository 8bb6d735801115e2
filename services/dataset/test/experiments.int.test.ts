import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DatasetServiceService as S,
  type ExperimentRunInput,
} from "@argus/proto/dataset/v1/dataset";
import { uniqueName } from "@argus/testkit";
import { problemOf, startDatasetUnderTest, type DatasetUnderTest } from "./datasetUnderTest.ts";

let t: DatasetUnderTest;

const dataset = (n = 3) =>
  t.call(S.createDataset, {
    spaceId: t.spaceId,
    name: uniqueName("ds"),
    examples: Array.from({ length: n }, (_, i) => ({ id: "", fieldsJson: JSON.stringify({ i }) })),
  });
const runsFor = (exampleIds: string[]): ExperimentRunInput[] =>
  exampleIds.map((exampleId, i) => ({
    exampleId,
    output: `out ${i}`,
    fieldsJson: JSON.stringify({ "eval.correct.score": i % 2 }),
  }));
const list = (q: Partial<{ datasetId: string; spaceId: string; name: string }>) =>
  t.call(S.listExperiments, {
    page: { limit: 100, after: "" },
    datasetId: "",
    spaceId: "",
    name: "",
    ...q,
  });

beforeAll(async () => {
  t = await startDatasetUnderTest();
});
afterAll(async () => {
  await t?.stop();
});

describe("experiments", () => {
  it("on a dataset: its latest version, runs in order, listed by dataset and by space", async () => {
    const d = await dataset(3);
    const name = uniqueName("exp");
    const w = await t.call(S.createExperiment, {
      name,
      datasetId: d.dataset!.id,
      spaceId: "",
      runs: runsFor(d.exampleIds),
    });
    expect(w.experiment).toMatchObject({
      name,
      spaceId: t.spaceId,
      datasetId: d.dataset!.id,
      datasetVersionId: d.versionId,
    });
    expect(w.runIds).toHaveLength(3);
    const runs = await t.call(S.listExperimentRuns, {
      experimentId: w.experiment!.id,
      page: { limit: 500, after: "" },
    });
    expect(runs.runs.map((r) => [r.id, r.exampleId, r.output])).toEqual(
      w.runIds.map((id, i) => [id, d.exampleIds[i], `out ${i}`]),
    );
    expect(JSON.parse(runs.runs[1]!.fieldsJson)).toEqual({ "eval.correct.score": 1 });
    expect((await list({ datasetId: d.dataset!.id })).experiments.map((e) => e.id)).toEqual([
      w.experiment!.id,
    ]);
    expect((await list({ spaceId: t.spaceId })).experiments.map((e) => e.id)).toContain(
      w.experiment!.id,
    );
    const search = async (filter: string) =>
      (
        await t.call(S.searchExperimentRuns, {
          experimentId: w.experiment!.id,
          page: { limit: 10, after: "" },
          filter,
        })
      ).runs.map((r) => r.output);
    expect(await search("output = 'out 1'")).toEqual(["out 1"]);
    expect(await search("eval.correct.score = 0")).toEqual(["out 0", "out 2"]);
    expect(await problemOf(search("output ="))).toBe("invalid-request");
    const inserted = await t.call(S.insertExperimentRuns, {
      experimentId: w.experiment!.id,
      runs: runsFor([d.exampleIds[0]!]),
    });
    expect(inserted.runIds).toHaveLength(1);
  });

  it("without a dataset: in a space, runs name no example; listed without filters", async () => {
    const name = uniqueName("free");
    const w = await t.call(S.createExperiment, {
      name,
      datasetId: "",
      spaceId: t.spaceId,
      runs: [{ exampleId: "", output: "o", fieldsJson: "{}" }],
    });
    expect(w.experiment!.datasetId).toBe("");
    expect((await list({})).experiments.map((e) => e.id)).toContain(w.experiment!.id);
    expect((await list({ name: name.toUpperCase() })).experiments.map((e) => e.id)).toEqual([
      w.experiment!.id,
    ]);
  });

  it("refuses both or neither of dataset_id and space_id, bad names, bad runs", async () => {
    const d = await dataset(1);
    const make = (q: Partial<Parameters<typeof t.call<unknown, unknown>>[1]> & object) =>
      problemOf(
        t.call(S.createExperiment, {
          name: "n",
          datasetId: "",
          spaceId: "",
          runs: runsFor(d.exampleIds),
          ...q,
        }),
      );
    expect(await make({ datasetId: d.dataset!.id, spaceId: t.spaceId })).toBe("invalid-request");
    expect(await make({})).toBe("invalid-request");
    expect(await make({ datasetId: d.dataset!.id, name: 'a"b' })).toBe("invalid-request");
    expect(await make({ datasetId: d.dataset!.id, name: "a".repeat(256) })).toBe("invalid-request");
    expect(await make({ datasetId: d.dataset!.id, name: "a".repeat(255) })).toBe("ok");
    expect(await make({ datasetId: d.dataset!.id, name: "a".repeat(255) })).toBe(
      "resource-conflict",
    );
    expect(await make({ datasetId: d.dataset!.id, runs: [] })).toBe("validation-error");
    const ghost = "00000000-0000-7000-8000-000000000009";
    expect(await make({ datasetId: d.dataset!.id, runs: runsFor([ghost]) })).toBe(
      "validation-error",
    );
    expect(await make({ spaceId: t.spaceId, runs: runsFor(d.exampleIds) })).toBe(
      "validation-error",
    );
    expect(await problemOf(list({ datasetId: d.dataset!.id, spaceId: t.spaceId }))).toBe(
      "invalid-request",
    );
  });

  it("deleting a dataset deletes its experiments; deleting one experiment takes its runs", async () => {
    const d = await dataset(2);
    const w = await t.call(S.createExperiment, {
      name: "e",
      datasetId: d.dataset!.id,
      spaceId: "",
      runs: runsFor(d.exampleIds),
    });
    await t.call(S.deleteDataset, { id: d.dataset!.id });
    expect(await problemOf(t.call(S.getExperiment, { id: w.experiment!.id }))).toBe(
      "resource-not-found",
    );
    const free = await t.call(S.createExperiment, {
      name: "f",
      datasetId: "",
      spaceId: t.spaceId,
      runs: [{ exampleId: "", output: "o", fieldsJson: "{}" }],
    });
    await t.call(S.deleteExperiment, { id: free.experiment!.id });
    expect(
      await problemOf(
        t.call(S.listExperimentRuns, {
          experimentId: free.experiment!.id,
          page: { limit: 10, after: "" },
        }),
      ),
    ).toBe("resource-not-found");
    expect(await problemOf(t.call(S.deleteExperiment, { id: free.experiment!.id }))).toBe(
      "resource-not-found",
    );
  });
});
