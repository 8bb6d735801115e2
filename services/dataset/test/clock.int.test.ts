import pg from "pg";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@argus/platform";
import { DatasetServiceService as S } from "@argus/proto/dataset/v1/dataset";
import { startedForFile, uniqueName } from "@argus/testkit";
import { startDatasetUnderTest } from "./datasetUnderTest.ts";

// Far from the wall clock, so a write stamped with the system's time would show.
const pinned = new Date("2026-03-04T05:06:07.089Z");
const anHourLater = new Date(pinned.getTime() + 3_600_000).toISOString();
const twoHoursLater = new Date(pinned.getTime() + 7_200_000).toISOString();
const clock = fixedClock(pinned);

const t = startedForFile(() => startDatasetUnderTest({ clock }));

describe("the dataset service's clock", () => {
  it("stamps datasets, versions, examples, experiments, runs and deletes with its time", async () => {
    const w = await t.call(S.createDataset, {
      spaceId: t.spaceId,
      name: uniqueName("clock"),
      examples: [{ id: "", fieldsJson: '{"q":1}' }],
    });
    const datasetId = w.dataset!.id;
    const got = await t.call(S.getDataset, { id: datasetId });
    expect([got.createdAt, got.updatedAt, got.versions[0]!.createdAt]).toEqual([
      pinned.toISOString(),
      pinned.toISOString(),
      pinned.toISOString(),
    ]);

    clock.advance(3_600_000);
    await t.call(S.insertExamples, {
      datasetId,
      versionId: "",
      examples: [{ id: "", fieldsJson: '{"q":2}' }],
    });
    const examples = await t.call(S.listExamples, {
      datasetId,
      versionId: "",
      page: { limit: 10, after: "" },
    });
    expect(examples.examples.map((e) => [e.createdAt, e.updatedAt])).toEqual([
      [pinned.toISOString(), pinned.toISOString()],
      [anHourLater, anHourLater],
    ]);
    expect((await t.call(S.getDataset, { id: datasetId })).updatedAt).toBe(anHourLater);

    // An update in place stamps the example, its version and the dataset in one statement.
    clock.advance(3_600_000);
    await t.call(S.updateExamples, {
      datasetId,
      versionId: "",
      examples: [{ id: w.exampleIds[0]!, fieldsJson: '{"q":3}' }],
      newVersion: "",
    });
    const updated = await t.call(S.getDataset, { id: datasetId });
    expect([updated.updatedAt, updated.versions[0]!.updatedAt]).toEqual([
      twoHoursLater,
      twoHoursLater,
    ]);
    const after = await t.call(S.listExamples, {
      datasetId,
      versionId: "",
      page: { limit: 10, after: "" },
    });
    expect(after.examples.map((e) => [e.createdAt, e.updatedAt, e.fieldsJson])).toEqual([
      [pinned.toISOString(), twoHoursLater, '{"q": 3}'],
      [anHourLater, anHourLater, '{"q": 2}'],
    ]);
    clock.advance(-3_600_000);

    const e = await t.call(S.createExperiment, {
      name: uniqueName("exp"),
      datasetId,
      spaceId: "",
      runs: [{ exampleId: w.exampleIds[0]!, output: "o", fieldsJson: "{}" }],
    });
    expect(e.experiment!.createdAt).toBe(anHourLater);
    const runs = await t.call(S.listExperimentRuns, {
      experimentId: e.experiment!.id,
      page: { limit: 10, after: "" },
    });
    expect(runs.runs.map((r) => r.createdAt)).toEqual([anHourLater]);

    await t.call(S.deleteDataset, { id: datasetId });
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    try {
      const { rows } = await pool.query<{ type: string; at: string }>(
        `select event_type as type, data->>'deleted_at' as at from events
          where stream_id = any($1) and event_type in ('DatasetDeleted', 'ExperimentDeleted')
          order by event_type`,
        [[`dataset-${datasetId}`, `experiment-${e.experiment!.id}`]],
      );
      expect(rows).toEqual([
        { type: "DatasetDeleted", at: anHourLater },
        { type: "ExperimentDeleted", at: anHourLater },
      ]);
    } finally {
      await pool.end();
    }
  });
});
