import { randomUUID } from "node:crypto";
import { INIT_ADMIN_EMAIL } from "@argus/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addAnnotationQueueRecords,
  annotateAnnotationQueueRecord,
  assignAnnotationQueueRecord,
  createAnnotationQueue,
  createCategoricalAnnotationConfig,
  createClient,
  createContinuousAnnotationConfig,
  createFreeformAnnotationConfig,
  deleteAnnotationConfig,
  deleteAnnotationQueue,
  deleteAnnotationQueueRecords,
  getAnnotationConfig,
  getAnnotationQueue,
  listAnnotationConfigs,
  listAnnotationQueueRecords,
  listAnnotationQueues,
  updateAnnotationQueue,
  updateCategoricalAnnotationConfig,
  updateContinuousAnnotationConfig,
} from "@arizeai/ax-client";
import { recentWindow, sendSpans } from "./spans-support.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

let api: Api;
let spaceId: string;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });

beforeAll(async () => {
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
});
afterAll(() => api?.stop());

describe("annotation configs through @arizeai/ax-client", () => {
  it("creates, reads, updates, lists and deletes each type", async () => {
    const client = ax();
    const categorical = await createCategoricalAnnotationConfig({
      client,
      space: spaceId,
      name: "quality",
      values: [
        { label: "good", score: 1 },
        { label: "bad", score: 0 },
      ],
      optimizationDirection: "MAXIMIZE",
    });
    expect(categorical).toMatchObject({
      type: "CATEGORICAL",
      name: "quality",
      spaceId,
      optimizationDirection: "MAXIMIZE",
      values: [
        { label: "good", score: 1 },
        { label: "bad", score: 0 },
      ],
    });
    const continuous = await createContinuousAnnotationConfig({
      client,
      space: spaceId,
      name: "accuracy",
      minimumScore: 0,
      maximumScore: 1,
    });
    expect(continuous).toMatchObject({ type: "CONTINUOUS", minimumScore: 0, maximumScore: 1 });
    expect(continuous.optimizationDirection).toBe("NONE");
    const freeform = await createFreeformAnnotationConfig({
      client,
      space: spaceId,
      name: "notes",
    });
    expect(freeform.type).toBe("FREEFORM");

    expect((await getAnnotationConfig({ client, annotationConfig: categorical.id })).name).toBe(
      "quality",
    );
    const byName = await getAnnotationConfig({
      client,
      annotationConfig: "accuracy",
      space: spaceId,
    });
    expect(byName.id).toBe(continuous.id);

    const widened = await updateContinuousAnnotationConfig({
      client,
      annotationConfig: continuous.id,
      maximumScore: 10,
    });
    expect(widened).toMatchObject({ minimumScore: 0, maximumScore: 10 });
    const relabelled = await updateCategoricalAnnotationConfig({
      client,
      annotationConfig: categorical.id,
      values: [{ label: "yes" }, { label: "no" }, { label: "maybe" }],
    });
    expect(relabelled).toMatchObject({
      values: [{ label: "yes" }, { label: "no" }, { label: "maybe" }],
    });

    const listed = await listAnnotationConfigs({ client, space: spaceId, limit: 2 });
    expect(listed.data).toHaveLength(2);
    expect(listed.pagination.hasMore).toBe(true);

    await deleteAnnotationConfig({ client, annotationConfig: freeform.id });
    expectProblem(
      await api.req("GET", `/v2/annotation-configs/${freeform.id}`),
      404,
      "resource-not-found",
    );
  });
});

describe("annotation configs over plain HTTP: edges", () => {
  const categorical = (name: string, n: number) =>
    api.req("POST", "/v2/annotation-configs", {
      body: {
        name,
        space_id: spaceId,
        annotation_config_type: "CATEGORICAL",
        values: Array.from({ length: n }, (_, i) => ({ label: `l${i}` })),
      },
    });

  it("categorical values: 2 and 500 (the public API's bound) pass, 1 and 501 are 400; names are unique (409)", async () => {
    expect((await categorical("two", 2)).status).toBe(201);
    expect((await categorical("five hundred", 500)).status).toBe(201);
    expectProblem(await categorical("one", 1), 400, "invalid-request");
    expectProblem(await categorical("many", 501), 400, "invalid-request");
    expectProblem(await categorical("two", 2), 409, "resource-conflict");
  });

  it("the type is immutable; minimum must be below maximum; system fields are 400", async () => {
    const created = (
      await api.req("POST", "/v2/annotation-configs", {
        body: {
          name: "range",
          space_id: spaceId,
          annotation_config_type: "CONTINUOUS",
          minimum_score: 0,
          maximum_score: 5,
        },
      })
    ).body;
    expectProblem(
      await api.req("PATCH", `/v2/annotation-configs/${created.id}`, {
        body: { annotation_config_type: "FREEFORM", name: "x" },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/annotation-configs/${created.id}`, {
        body: { annotation_config_type: "CONTINUOUS", minimum_score: 9 },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/annotation-configs", {
        body: { name: "sys", space_id: spaceId, annotation_config_type: "FREEFORM", id: "x" },
      }),
      400,
      "invalid-request",
    );
    expectProblem(await api.req("GET", "/v2/annotation-configs?limit=101"), 400, "invalid-request");
  });
});

describe("annotation queues through @arizeai/ax-client", () => {
  it("creates a queue with records, assigns, annotates by config name, and cleans up", async () => {
    const client = ax();
    const adminEmail: string = (await api.req("GET", "/v2/users")).body.users[0].email;
    // Records name real spans of the project (the catalog checks them with the tracing service).
    const sent = await sendSpans(api.stack, {
      spaceId,
      projectName: "traces-for-review",
      spansPerTrace: 3,
    });
    const project = { id: sent.projectId };
    const [span1, span2, span3] = sent.spanIds as [string, string, string];
    const window = recentWindow();
    const accuracy = await createCategoricalAnnotationConfig({
      client,
      space: spaceId,
      name: "correctness",
      values: [
        { label: "correct", score: 1 },
        { label: "wrong", score: 0 },
      ],
    });
    const notes = await createFreeformAnnotationConfig({ client, space: spaceId, name: "remarks" });
    const spanSource = (spanIds: string[]) => ({
      recordType: "SPAN" as const,
      projectId: project.id,
      startTime: window.start_time,
      endTime: window.end_time,
      spanIds,
    });

    const queue = await createAnnotationQueue({
      client,
      name: "Quality Review",
      spaceId,
      instructions: "Check every answer",
      annotationConfigIds: [accuracy.id],
      annotatorEmails: [adminEmail],
      recordSources: [spanSource([span1, span2])],
    });
    expect(queue).toMatchObject({
      name: "Quality Review",
      spaceId,
      instructions: "Check every answer",
    });
    expect(queue.annotators.map((a) => a.email)).toEqual([adminEmail]);
    expect(queue.annotationConfigs?.map((c) => c.id)).toEqual([accuracy.id]);
    expect(
      (await getAnnotationQueue({ client, annotationQueue: "Quality Review", space: spaceId })).id,
    ).toBe(queue.id);

    const added = await addAnnotationQueueRecords({
      client,
      annotationQueue: queue.id,
      recordSources: [spanSource([span3])],
    });
    expect(added).toHaveLength(1);
    expect(added[0]!.data).toMatchObject({ project_id: project.id, "context.span_id": span3 });

    const records = await listAnnotationQueueRecords({
      client,
      annotationQueue: queue.id,
      limit: 2,
    });
    expect(records.data).toHaveLength(2);
    expect(records.pagination.hasMore).toBe(true);
    const first = records.data[0]!;
    expect(first.assignedUsers).toEqual([
      { user: { id: expect.any(String), email: adminEmail }, completionStatus: "PENDING" },
    ]);

    const updated = await updateAnnotationQueue({
      client,
      annotationQueue: queue.id,
      annotationConfigIds: [accuracy.id, notes.id],
    });
    expect(updated.annotationConfigs?.map((c) => c.name)).toEqual(["correctness", "remarks"]);

    const annotated = await annotateAnnotationQueueRecord({
      client,
      annotationQueue: queue.id,
      annotationQueueRecordId: first.id,
      annotations: [
        { name: "correctness", label: "correct", score: 1 },
        { name: "remarks", text: "well argued" },
      ],
    });
    expect(annotated.annotations).toMatchObject([
      { name: "correctness", label: "correct", score: 1 },
      { name: "remarks", text: "well argued" },
    ]);
    // Omitted fields keep their value; the annotator's assignment is complete.
    await annotateAnnotationQueueRecord({
      client,
      annotationQueue: queue.id,
      annotationQueueRecordId: first.id,
      annotations: [{ name: "correctness", score: 0.5 }],
    });
    const after = (
      await listAnnotationQueueRecords({ client, annotationQueue: queue.id })
    ).data.find((r) => r.id === first.id)!;
    expect(after.annotations).toMatchObject([
      { name: "correctness", label: "correct", score: 0.5 },
      { name: "remarks", text: "well argued" },
    ]);
    expect(after.assignedUsers[0]!.completionStatus).toBe("COMPLETED");

    const assigned = await assignAnnotationQueueRecord({
      client,
      annotationQueue: queue.id,
      annotationQueueRecordId: first.id,
      assignedUserEmails: [],
    });
    expect(assigned.assignedUsers).toEqual([]);

    await deleteAnnotationQueueRecords({
      client,
      annotationQueue: queue.id,
      recordIds: [first.id],
    });
    expect(
      (await listAnnotationQueueRecords({ client, annotationQueue: queue.id })).data,
    ).toHaveLength(2);

    const listed = await listAnnotationQueues({ client, space: spaceId });
    expect(listed.data.map((q) => q.id)).toContain(queue.id);

    // A config used by a queue cannot be deleted.
    expectProblem(
      await api.req("DELETE", `/v2/annotation-configs/${notes.id}`),
      409,
      "resource-conflict",
    );
    await deleteAnnotationQueue({ client, annotationQueue: queue.id });
    expectProblem(
      await api.req("GET", `/v2/annotation-queues/${queue.id}`),
      404,
      "resource-not-found",
    );
    expect((await api.req("DELETE", `/v2/annotation-configs/${notes.id}`)).status).toBe(204);
  });
});

describe("annotation queues over plain HTTP: edges", () => {
  let configId: string;
  let projectId: string;
  let spanIds: string[];
  let window: { start_time: string; end_time: string };
  const queue = (name: string, extra: Record<string, unknown> = {}) =>
    api.req("POST", "/v2/annotation-queues", {
      body: {
        name,
        space_id: spaceId,
        annotation_config_ids: [configId],
        annotator_emails: [INIT_ADMIN_EMAIL],
        ...extra,
      },
    });
  const spans = (n: number, over: Record<string, unknown> = {}) => ({
    record_type: "SPAN",
    project_id: projectId,
    ...window,
    span_ids: spanIds.slice(0, n),
    ...over,
  });
  const later = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

  beforeAll(async () => {
    configId = (
      await api.req("POST", "/v2/annotation-configs", {
        body: { name: "edge-config", space_id: spaceId, annotation_config_type: "FREEFORM" },
      })
    ).body.id;
    // 501 real spans: the record sources below name up to 500 of them.
    const sent = await sendSpans(api.stack, {
      spaceId,
      projectName: "edge-project",
      spansPerTrace: 501,
    });
    projectId = sent.projectId;
    spanIds = sent.spanIds;
    // A 7-day window (the longest a source may span) that holds the spans.
    const start = new Date(Date.now() - 3 * 86_400_000).toISOString();
    window = { start_time: start, end_time: later(start, 7 * 86_400_000) };
  });

  it("names are unique (409); configs are required (400); unknown annotators are 422", async () => {
    expect((await queue("edge-q")).status).toBe(201);
    expectProblem(await queue("edge-q"), 409, "resource-conflict");
    expectProblem(await queue("no-configs", { annotation_config_ids: [] }), 400, "invalid-request");
    // At least one annotator at creation (the helper names one); an update may leave none.
    expectProblem(await queue("no-annotators", { annotator_emails: [] }), 400, "invalid-request");
    expectProblem(
      await queue("ghost", { annotator_emails: ["nobody@example.com"] }),
      422,
      "unprocessable-entity",
    );
  });

  it("annotators: 1 to 100 at creation; an update may assign none", async () => {
    const emails: string[] = [];
    for (let i = 0; i < 100; i++) {
      const email = `annotator-${i}-${randomUUID()}@example.com`;
      const made = await api.req("POST", "/v2/users", {
        body: {
          name: `annotator ${i}`,
          email,
          role: { type: "PREDEFINED", name: "ADMIN" },
          invite_mode: "NONE",
        },
      });
      expect(made.status).toBe(201);
      emails.push(email);
    }
    expectProblem(
      await queue("annotators-101", { annotator_emails: [...emails, INIT_ADMIN_EMAIL] }),
      400,
      "invalid-request",
    );
    const full = await queue("annotators-100", { annotator_emails: emails });
    expect(full.status).toBe(201);
    const assigned = (q: Json) => (q.annotators as Json[]).map((u) => u.email as string).sort();
    expect(assigned(full.body)).toEqual([...emails].sort());
    const cleared = await api.req("PATCH", `/v2/annotation-queues/${full.body.id}`, {
      body: { annotator_emails: [] },
    });
    expect(cleared.status).toBe(200);
    expect(assigned(cleared.body)).toEqual([]);
  });

  it("instructions: up to 5000 characters; an update's may be null, never empty", async () => {
    expect((await queue("instr-5000", { instructions: "i".repeat(5000) })).status).toBe(201);
    expectProblem(
      await queue("instr-5001", { instructions: "i".repeat(5001) }),
      400,
      "invalid-request",
    );
    const q = (await queue("instr-upd", { instructions: "i" })).body;
    const update = (instructions: unknown) =>
      api.req("PATCH", `/v2/annotation-queues/${q.id}`, { body: { instructions } });
    expectProblem(await update(""), 400, "invalid-request");
    expectProblem(await update("i".repeat(5001)), 400, "invalid-request");
    expect((await update("i".repeat(5000))).status).toBe(200);
    const cleared = await update(null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.instructions ?? null).toBeNull();
  });

  it("deleting records: 1 to 100 ids a request", async () => {
    const q = (await queue("delete-edges")).body;
    const ids = (n: number) =>
      Array.from({ length: n }, () =>
        Buffer.from(`AnnotationQueueRecord:${randomUUID()}`).toString("base64"),
      );
    const del = (record_ids: string[]) =>
      api.req("DELETE", `/v2/annotation-queues/${q.id}/records`, { body: { record_ids } });
    expectProblem(await del([]), 400, "invalid-request");
    expectProblem(await del(ids(101)), 400, "invalid-request");
    // Ids not in the queue are ignored.
    for (const n of [1, 100]) expect((await del(ids(n))).status).toBeLessThan(300);
  });

  it("record sources: 1 to 2 per request, 500 records, a 7-day range, start before end", async () => {
    const q = (await queue("edge-records")).body;
    const add = (record_sources: unknown[]) =>
      api.req("POST", `/v2/annotation-queues/${q.id}/records`, { body: { record_sources } });
    expect((await add([spans(500)])).status).toBe(201);
    expectProblem(await add([spans(250), spans(251)]), 400, "invalid-request");
    expectProblem(await add([]), 400, "invalid-request");
    expectProblem(await add([spans(1), spans(1), spans(1)]), 400, "invalid-request");
    expectProblem(
      await add([spans(1, { end_time: later(window.end_time, 1000) })]),
      400,
      "invalid-request",
    );
    expectProblem(
      await add([spans(1, { start_time: later(window.end_time, 86_400_000) })]),
      400,
      "invalid-request",
    );
  });

  it("span and trace ids must name spans of the project in the window (422)", async () => {
    const q = (await queue("edge-unknown-spans")).body;
    const add = (record_sources: unknown[]) =>
      api.req("POST", `/v2/annotation-queues/${q.id}/records`, { body: { record_sources } });
    expectProblem(
      await add([spans(0, { span_ids: [spanIds[0], "0123456789abcdef"] })]),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await add([
        {
          record_type: "TRACE",
          project_id: projectId,
          ...window,
          trace_ids: ["0123456789abcdef0123456789abcdef"],
        },
      ]),
      422,
      "unprocessable-entity",
    );
    // A real span outside the source's window is not found either.
    const old = new Date(Date.now() - 20 * 86_400_000).toISOString();
    expectProblem(
      await add([spans(1, { start_time: old, end_time: later(old, 86_400_000) })]),
      422,
      "unprocessable-entity",
    );
    // Nothing of a refused request was added.
    const records = await api.req("GET", `/v2/annotation-queues/${q.id}/records`);
    expect(records.body.records).toEqual([]);
    expect((await add([spans(2)])).status).toBe(201);
    // A source the queue holds adds nothing (the public API): 201 with only the new records,
    // 200 with none when every source was there already.
    const more = await add([spans(3)]);
    expect(more.status).toBe(201);
    expect(more.body.record_sources).toHaveLength(1);
    const again = await add([spans(3)]);
    expect(again.status).toBe(200);
    expect(again.body.record_sources).toEqual([]);
    const held = await api.req("GET", `/v2/annotation-queues/${q.id}/records`);
    expect(held.body.records).toHaveLength(3);
    // Every field of the public record, the session's annotations included.
    for (const r of held.body.records)
      expect(r).toMatchObject({ trace_annotations: [], session_annotations: [], evaluations: [] });
  });

  it("tags attach to a queue (spec endpoint 2) and go when the queue is deleted", async () => {
    const q = (await queue("edge-tagged")).body;
    const tag = (
      await api.req("POST", "/v2/tags", { body: { space_id: spaceId, name: "queue-tag" } })
    ).body;
    const attached = await api.req("POST", `/v2/annotation-queues/${q.id}/tags`, {
      body: { tag_ids: [tag.id] },
    });
    expect(attached.status).toBe(200);
    expect(attached.body.tags.map((t: { id: string }) => t.id)).toEqual([tag.id]);
    expect((await api.req("DELETE", `/v2/annotation-queues/${q.id}`)).status).toBe(204);
    expectProblem(
      await api.req("GET", `/v2/annotation-queues/${q.id}/tags`),
      404,
      "resource-not-found",
    );
  });

  it("annotating with a name that is no config of the queue is 422; 0 annotations 400", async () => {
    const q = (await queue("edge-annotate", { record_sources: [spans(1)] })).body;
    const records = (await api.req("GET", `/v2/annotation-queues/${q.id}/records`)).body.records;
    const url = `/v2/annotation-queues/${q.id}/records/${records[0].id}/annotate`;
    expectProblem(
      await api.req("POST", url, { body: { annotations: [{ name: "unknown", label: "x" }] } }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("POST", url, { body: { annotations: [] } }),
      400,
      "invalid-request",
    );
    const ok = await api.req("POST", url, {
      body: { annotations: [{ name: "edge-config", text: "fine" }] },
    });
    expect(ok.status).toBe(200);
  });
});
