import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  DatasetServiceService as S,
  RunEvaluationDirectoryService as D,
  type ExperimentRunInput,
} from "@argus/proto/dataset/v1/dataset";
import { ColumnKind as K } from "@argus/proto/dataset/v1/bulk";
import { uuidv7 } from "@argus/platform";
import { startedForFile, uniqueName } from "@argus/testkit";
import { problemOf, startDatasetUnderTest } from "./datasetUnderTest.ts";

const t = startedForFile(() => startDatasetUnderTest());

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

describe("an evaluation run's runs, on the task runner's own behalf", () => {
  it("pages runs with their examples' fields, cut short once their text passes 8 MiB", async () => {
    // 14 runs of examples of 800 000 bytes: 10 fit in a page (8.0 MB), 11 would not (8.8 MB).
    const big = "x".repeat(800_000);
    const d = await t.call(S.createDataset, {
      spaceId: t.spaceId,
      name: uniqueName("ds"),
      examples: Array.from({ length: 14 }, (_, i) => ({
        id: "",
        fieldsJson: JSON.stringify({ i, big }),
      })),
    });
    const w = await t.call(S.createExperiment, {
      name: uniqueName("exp"),
      datasetId: d.dataset!.id,
      spaceId: "",
      runs: runsFor(d.exampleIds),
    });
    const page = (after: string, limit: number) =>
      t.asService(
        D.runsToEvaluate,
        { accountId: t.admin.accountId, experimentId: w.experiment!.id, page: { limit, after } },
        "task-runner",
      );
    const sorted = [...w.runIds].sort();
    const first = await page("", 500);
    expect(first.runs.map((r) => r.id)).toEqual(sorted.slice(0, 10));
    expect(first.page?.nextAfter).toBe(sorted[9]);
    expect(JSON.parse(first.runs[0]!.exampleFieldsJson).big).toHaveLength(800_000);
    const second = await page(first.page!.nextAfter, 500);
    expect(second.runs.map((r) => r.id)).toEqual(sorted.slice(10));
    expect(second.page?.nextAfter).toBe("");
    // Under the budget, the limit alone cuts: exactly a page's worth says there is no more.
    const small = await page("", 4);
    expect(small.runs.map((r) => r.id)).toEqual(sorted.slice(0, 4));
    expect(small.page?.nextAfter).toBe(sorted[3]);
    const last = await page(sorted[9]!, 4);
    expect(last.runs.map((r) => r.id)).toEqual(sorted.slice(10));
    expect(last.page?.nextAfter).toBe("");
    // Past the last run: the experiment's own answer with no run.
    const past = await page(sorted[13]!, 4);
    expect(past).toMatchObject({ experimentId: w.experiment!.id, runs: [] });
    expect(past.page?.nextAfter).toBe("");
    // Another account's, or no experiment at all: 404, whatever the id looks like.
    const ask = (accountId: string, experimentId: string) =>
      problemOf(
        t.asService(
          D.runsToEvaluate,
          { accountId, experimentId, page: { limit: 4, after: "" } },
          "task-runner",
        ),
      );
    expect(await ask(uuidv7(), w.experiment!.id)).toBe("resource-not-found");
    expect(await ask(t.admin.accountId, uuidv7())).toBe("resource-not-found");
    expect(await ask(t.admin.accountId, "not-a-uuid")).toBe("resource-not-found");
  });
});

describe("a RUN_EXPERIMENT run's experiment, on the task runner's own behalf", () => {
  const taskId = uuidv7();
  it("pages a version's examples, only those named or matching a filter", async () => {
    const d = await dataset(5);
    const accountId = t.admin.accountId;
    const all: string[] = [];
    let after = "";
    do {
      const page = await t.asService(
        D.examplesToRun,
        {
          accountId,
          datasetId: d.dataset!.id,
          datasetVersionId: "",
          exampleIds: [],
          filter: "",
          page: { limit: 2, after },
        },
        "task-runner",
      );
      expect(page.datasetVersionId).toBe(d.versionId);
      all.push(...page.examples.map((e) => e.id));
      after = page.page?.nextAfter ?? "";
    } while (after);
    expect(all).toEqual([...d.exampleIds].sort());
    const some = await t.asService(
      D.examplesToRun,
      {
        accountId,
        datasetId: d.dataset!.id,
        datasetVersionId: d.versionId,
        exampleIds: d.exampleIds.slice(0, 3),
        filter: "i >= 1",
        page: { limit: 100, after: "" },
      },
      "task-runner",
    );
    expect(some.examples.map((e) => JSON.parse(e.fieldsJson).i).sort()).toEqual([1, 2]);
    // Another account's dataset is not there; a caller other than the task runner is refused.
    expect(
      await problemOf(
        t.asService(
          D.examplesToRun,
          {
            accountId: uuidv7(),
            datasetId: d.dataset!.id,
            datasetVersionId: "",
            exampleIds: [],
            filter: "",
            page: { limit: 1, after: "" },
          },
          "task-runner",
        ),
      ),
    ).toBe("resource-not-found");
    expect(
      await problemOf(
        t.call(D.examplesToRun, {
          accountId,
          datasetId: d.dataset!.id,
          datasetVersionId: "",
          exampleIds: [],
          filter: "",
          page: { limit: 1, after: "" },
        }),
      ),
    ).toBe("access-forbidden");
  });

  it("makes the experiment once under the run's id, and adds each example's output once", async () => {
    const d = await dataset(3);
    const accountId = t.admin.accountId;
    const experimentId = uuidv7();
    const name = uniqueName("generated");
    const start = (id: string) =>
      t.asService(
        D.startTaskExperiment,
        {
          accountId,
          experimentId: id,
          datasetId: d.dataset!.id,
          datasetVersionId: "",
          name,
          taskId,
          integrationId: "",
        },
        "task-runner",
      );
    expect((await start(experimentId)).experimentId).toBe(experimentId);
    // A resumed run asks again: the same experiment, nothing new.
    expect((await start(experimentId)).experimentId).toBe(experimentId);
    expect((await list({ datasetId: d.dataset!.id })).experiments.map((e) => e.id)).toEqual([
      experimentId,
    ]);
    // Another run with the name taken: a conflict.
    expect(await problemOf(start(uuidv7()))).toBe("resource-conflict");
    const record = (ids: string[], output: string) =>
      t.asService(
        D.recordTaskExperimentRuns,
        {
          accountId,
          experimentId,
          taskId,
          runs: ids.map((exampleId) => ({ exampleId, output })),
        },
        "task-runner",
      );
    await record(d.exampleIds.slice(0, 2), "first");
    // A repeat after a crash, overlapping: only the example without a run gets one.
    await record(d.exampleIds, "second");
    const runs = await t.call(S.listExperimentRuns, {
      experimentId,
      page: { limit: 500, after: "" },
    });
    expect(Object.fromEntries(runs.runs.map((r) => [r.exampleId, r.output]))).toEqual({
      [d.exampleIds[0]!]: "first",
      [d.exampleIds[1]!]: "first",
      [d.exampleIds[2]!]: "second",
    });
  });
});

describe("a task's outputs on a large experiment", () => {
  it("asks which examples have a run by their index, not by reading every run", async () => {
    const d = await dataset(1);
    const experimentId = uuidv7();
    const taskId = uuidv7();
    await t.asService(
      D.startTaskExperiment,
      {
        accountId: t.admin.accountId,
        experimentId,
        datasetId: d.dataset!.id,
        datasetVersionId: "",
        name: uniqueName("large"),
        taskId,
        integrationId: "",
      },
      "task-runner",
    );
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    try {
      // 200 000 earlier runs, as a task over a large dataset leaves them.
      await pool.query(
        `insert into experiment_runs (experiment_id, id, example_id, output, fields, created_at)
         select $1, gen_random_uuid(), gen_random_uuid(), 'o', '{}', now()
           from generate_series(1, 200000)`,
        [experimentId],
      );
      await pool.query("analyze experiment_runs");
      const { rows } = await pool.query<{ id: string }>(
        "select example_id as id from experiment_runs where experiment_id = $1 limit 200",
        [experimentId],
      );
      // The statement recordTaskExperimentRuns asks, for a page of 200.
      const plan = await pool.query<{ "QUERY PLAN": [{ Plan: { "Shared Hit Blocks": number } }] }>(
        `explain (analyze, buffers, format json)
         select example_id from experiment_runs
          where experiment_id = $1 and example_id = any($2::uuid[])`,
        [experimentId, rows.map((r) => r.id)],
      );
      // By index: a few blocks per example. Reading the experiment's runs: over 2 500.
      expect(plan.rows[0]!["QUERY PLAN"][0].Plan["Shared Hit Blocks"]).toBeLessThan(1_500);
      const record = (output: string) =>
        t.asService(
          D.recordTaskExperimentRuns,
          {
            accountId: t.admin.accountId,
            experimentId,
            taskId,
            runs: [{ exampleId: d.exampleIds[0]!, output }],
          },
          "task-runner",
        );
      await record("new");
      await record("again");
      const outputs = await pool.query<{ output: string }>(
        "select output from experiment_runs where experiment_id = $1 and example_id = $2",
        [experimentId, d.exampleIds[0]],
      );
      expect(outputs.rows.map((r) => r.output)).toEqual(["new"]);
    } finally {
      await pool.end();
    }
  });
});

describe("a task's evaluations of runs", () => {
  it("set each run's eval.<name>.* fields, and the columns' kinds as their values are", async () => {
    const d = await dataset(3);
    const w = await t.call(S.createExperiment, {
      name: uniqueName("exp"),
      datasetId: d.dataset!.id,
      spaceId: "",
      runs: runsFor(d.exampleIds),
    });
    const [a, b, c] = w.runIds as [string, string, string];
    await t.asService(
      D.recordRunEvaluations,
      {
        accountId: t.admin.accountId,
        experimentId: w.experiment!.id,
        taskId: uuidv7(),
        evaluations: [
          { runId: a, name: "whole", label: "yes", score: 1, explanation: "e" },
          { runId: b, name: "whole", label: "no", score: -999999999999999872 },
          { runId: a, name: "part", score: 0.5 },
          { runId: b, name: "part", score: 1e18 },
          { runId: c, name: "none" },
        ],
      },
      "task-runner",
    );
    const runs = await t.call(S.listExperimentRuns, {
      experimentId: w.experiment!.id,
      page: { limit: 10, after: "" },
    });
    const fields = new Map(runs.runs.map((r) => [r.id, JSON.parse(r.fieldsJson) as object]));
    expect(fields.get(a)).toMatchObject({
      "eval.whole.label": "yes",
      "eval.whole.score": 1,
      "eval.whole.explanation": "e",
      "eval.part.label": null,
      "eval.part.score": 0.5,
    });
    expect(fields.get(c)).toMatchObject({
      "eval.none.label": null,
      "eval.none.score": null,
      "eval.none.explanation": null,
    });
    // A value left out is JSON null (no kind); a score is an integer while whole and of at
    // most 18 digits, else a number.
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    try {
      const { rows } = await pool.query<{ name: string; kinds: number }>(
        "select name, kinds from run_columns where experiment_id = $1 and name like 'eval.%'",
        [w.experiment!.id],
      );
      expect(Object.fromEntries(rows.map((r) => [r.name, r.kinds]))).toEqual({
        "eval.correct.score": K.COLUMN_KIND_INTEGER, // the runs' own, as created
        "eval.whole.label": K.COLUMN_KIND_STRING,
        "eval.whole.score": K.COLUMN_KIND_INTEGER,
        "eval.whole.explanation": K.COLUMN_KIND_STRING,
        "eval.part.label": 0,
        "eval.part.score": K.COLUMN_KIND_FLOAT,
        "eval.part.explanation": 0,
        "eval.none.label": 0,
        "eval.none.score": 0,
        "eval.none.explanation": 0,
      });
    } finally {
      await pool.end();
    }
  });
});
