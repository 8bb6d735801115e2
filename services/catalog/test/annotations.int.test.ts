import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AnnotationConfigServiceService as C,
  AnnotationQueueServiceService as Q,
  type RecordSource,
} from "@argus/proto/catalog/v1/annotations";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { startedForFile, uniqueName } from "@argus/testkit";
import { problemOf, startCatalogStack } from "./promptsStack.ts";

const t = startedForFile(() => startCatalogStack());
let spaceId: string;
let projectId: string;

const categorical = (name = uniqueName("cfg"), space = spaceId) =>
  t.call(C.createAnnotationConfig, {
    spaceId: space,
    name,
    type: "CATEGORICAL",
    values: [
      { label: "good", score: 1 },
      { label: "bad", score: 0 },
    ],
    optimizationDirection: "",
  });
const spans = (ids: string[]): RecordSource => ({
  recordType: "SPAN",
  projectId,
  datasetId: "",
  datasetVersionId: "",
  startTime: "2026-01-01T00:00:00Z",
  endTime: "2026-01-02T00:00:00Z",
  ids,
});

/** A queue of the space for everyone (ALL), taking `configIds`, with the records of `sources`. */
const queueWith = (configIds: string[], sources: RecordSource[] = []) =>
  t.call(Q.createAnnotationQueue, {
    spaceId,
    name: uniqueName("queue"),
    annotationConfigIds: configIds,
    annotatorEmails: [],
    assignmentMethod: "ALL",
    recordSources: sources,
  });

beforeAll(async () => {
  spaceId = await t.createSpace();
  projectId = (
    await t.call(ProjectServiceService.createProject, { spaceId, name: uniqueName("p") })
  ).id;
}, 60_000);

describe("annotation configs", () => {
  it("create, update in place, and names unique per space", async () => {
    const created = await categorical("quality");
    expect(created).toMatchObject({ type: "CATEGORICAL", optimizationDirection: "NONE" });
    expect(await problemOf(categorical("quality"))).toBe("resource-conflict");
    const updated = await t.call(C.updateAnnotationConfig, {
      id: created.id,
      type: "CATEGORICAL",
      setValues: false,
      values: [],
      optimizationDirection: "MAXIMIZE",
    });
    expect(updated).toMatchObject({
      optimizationDirection: "MAXIMIZE",
      values: [{ label: "good" }, { label: "bad" }],
    });
    const reader = t.member({ [spaceId]: ["ANNOTATION_CONFIG_READ"] });
    expect(await problemOf(t.call(C.getAnnotationConfig, { id: created.id }, reader))).toBe("ok");
    expect(await problemOf(t.call(C.deleteAnnotationConfig, { id: created.id }, reader))).toBe(
      "access-forbidden",
    );
    expect(await problemOf(t.call(C.getAnnotationConfig, { id: created.id }, t.member({})))).toBe(
      "resource-not-found",
    );
  });
});

describe("annotation queues", () => {
  it("records from a project of the space; a project elsewhere or a config elsewhere is 422", async () => {
    const cfg = await categorical();
    const queue = await queueWith([cfg.id], [spans(["a", "b"])]);
    expect(queue.annotationConfigs.map((c) => c.id)).toEqual([cfg.id]);
    const page = await t.call(Q.listAnnotationQueueRecords, {
      annotationQueueId: queue.id,
      page: { limit: 10, after: "" },
    });
    expect(page.records).toHaveLength(2);
    expect(JSON.parse(page.records[0]!.dataJson)).toMatchObject({ project_id: projectId });

    const other = await t.createSpace();
    const foreignProject = (
      await t.call(ProjectServiceService.createProject, { spaceId: other, name: uniqueName("p") })
    ).id;
    expect(
      await problemOf(
        t.call(Q.addAnnotationQueueRecords, {
          annotationQueueId: queue.id,
          recordSources: [{ ...spans(["c"]), projectId: foreignProject }],
        }),
      ),
    ).toBe("unprocessable-entity");
    const foreignConfig = await categorical(uniqueName("cfg"), other);
    expect(
      await problemOf(
        t.call(Q.createAnnotationQueue, {
          spaceId,
          name: uniqueName("queue"),
          annotationConfigIds: [foreignConfig.id],
          annotatorEmails: [],
          assignmentMethod: "",
          recordSources: [],
        }),
      ),
    ).toBe("unprocessable-entity");
  });

  it("annotates as the caller (upsert by config name) and publishes the event", async () => {
    const cfg = await categorical("verdict");
    const queue = await queueWith([cfg.id], [spans(["x"])]);
    const [rec] = (
      await t.call(Q.listAnnotationQueueRecords, { annotationQueueId: queue.id, page: undefined })
    ).records;
    const annotated = await t.call(Q.annotateAnnotationQueueRecord, {
      annotationQueueId: queue.id,
      recordId: rec!.id,
      annotations: [{ name: "verdict", label: "good" }],
    });
    expect(annotated.annotations).toMatchObject([{ name: "verdict", label: "good" }]);
    expect(annotated.annotations[0]!.annotator?.email).not.toBe("");
    const annotator = t.member({ [spaceId]: ["QUEUE_READ"] });
    expect(
      await problemOf(
        t.call(
          Q.annotateAnnotationQueueRecord,
          {
            annotationQueueId: queue.id,
            recordId: rec!.id,
            annotations: [{ name: "verdict", label: "bad" }],
          },
          annotator,
        ),
      ),
    ).toBe("access-forbidden");
    const subject = `${t.root}.catalog.annotation_queue.AnnotationQueueRecordAnnotated`;
    let got: unknown;
    for (let i = 0; i < 50 && !got; i++) {
      got = await t.lastStored(subject).catch(() => undefined);
      if (!got) await new Promise((r) => setTimeout(r, 100));
    }
    expect(got).toMatchObject({ subject, data: { type: "AnnotationQueueRecordAnnotated" } });
  });
});

describe("deleting an annotation config a queue takes up concurrently", () => {
  const useConfigs = (queue: string, configIds: string[]) =>
    t.call(Q.updateAnnotationQueue, {
      id: queue,
      setInstructions: false,
      setAnnotationConfigIds: true,
      annotationConfigIds: configIds,
      setAnnotatorEmails: false,
      annotatorEmails: [],
    });

  it("never leaves a queue using a deleted config: one command wins, the other is 409", async () => {
    const db = new pg.Pool({ connectionString: t.databaseUrl, options: "-c search_path=catalog" });
    const hold = await db.connect();
    try {
      const kept = await categorical();
      const contested = await categorical();
      const queue = await queueWith([kept.id]);
      // Real Postgres interleaving: a transaction holding the config row (key share, as a
      // queue's foreign key check does) makes the delete wait inside its commit, after its
      // "in use?" check passed; the queue update then runs while the delete is in flight.
      await hold.query("begin");
      await hold.query("select 1 from annotation_configs where id = $1 for key share", [
        contested.id,
      ]);
      const deleting = problemOf(t.call(C.deleteAnnotationConfig, { id: contested.id }));
      const waiting = async () =>
        Number(
          (
            await db.query(
              "select count(*) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
            )
          ).rows[0].count,
        );
      for (let i = 0; i < 100 && (await waiting()) === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await waiting()).toBeGreaterThan(0);
      const updating = problemOf(useConfigs(queue.id, [kept.id, contested.id]));
      await new Promise((r) => setTimeout(r, 200));
      await hold.query("commit");
      const outcomes = [await deleting, await updating].sort();
      expect(outcomes).toEqual(["ok", "resource-conflict"]);

      const dangling = await db.query(
        `select q.id from annotation_queues q cross join unnest(q.annotation_config_ids) c(id)
          where not exists (select 1 from annotation_configs where id = c.id)`,
      );
      expect(dangling.rows).toEqual([]);
      // Whichever won, the other command can now be judged plainly.
      const queueNow = await t.call(Q.getAnnotationQueue, { id: queue.id });
      const configGone =
        (await problemOf(t.call(C.getAnnotationConfig, { id: contested.id }))) ===
        "resource-not-found";
      expect(queueNow.annotationConfigs.map((c) => c.id).includes(contested.id)).toBe(!configGone);
      if (!configGone)
        expect(await problemOf(t.call(C.deleteAnnotationConfig, { id: contested.id }))).toBe(
          "resource-conflict",
        );
    } finally {
      await hold.query("rollback").catch(() => undefined);
      hold.release();
      await db.end();
    }
  });

  it("a config is deletable again once no queue uses it; deleting the queue frees it", async () => {
    const config = await categorical();
    const queue = await queueWith([config.id]);
    expect(await problemOf(t.call(C.deleteAnnotationConfig, { id: config.id }))).toBe(
      "resource-conflict",
    );
    const other = await categorical();
    await useConfigs(queue.id, [other.id]);
    expect(await problemOf(t.call(C.deleteAnnotationConfig, { id: config.id }))).toBe("ok");
    await t.call(Q.deleteAnnotationQueue, { id: queue.id });
    expect(await problemOf(t.call(C.deleteAnnotationConfig, { id: other.id }))).toBe("ok");
  });
});
