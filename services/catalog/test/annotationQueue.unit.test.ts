import { describe, expect, it } from "vitest";
import type { AnnotationQueueEvent } from "@argus/contracts";
import {
  annotationQueueDecider,
  type AnnotationQueueCommand,
} from "../src/annotationQueues/annotationQueueDecider.ts";
import {
  recordKey,
  type RecordDraft,
  type RecordSourceInput,
} from "../src/annotationQueues/annotationQueueRecordRules.ts";
import { problem, scenario } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const alice = { user_id: "u1", email: "alice@example.com" };
const bob = { user_id: "u2", email: "bob@example.com" };
const draft = (id: string, draw = 0): RecordDraft => ({
  id,
  source_type: "SPANS",
  granularity: "SPAN",
  data: { project_id: "p1", "context.span_id": id },
  draw,
});
const spanSource = (n: number, over: Partial<RecordSourceInput> = {}): RecordSourceInput => ({
  record_type: "SPAN",
  start_time: "2026-01-01T00:00:00Z",
  end_time: "2026-01-08T00:00:00Z",
  ids: Array.from({ length: n }, (_, i) => `s${i}`),
  ...over,
});
const drafts = (n: number) => Array.from({ length: n }, (_, i) => draft(`r${i}`));
type Create = Extract<AnnotationQueueCommand, { type: "CreateAnnotationQueue" }>;
const create = (over: Partial<Create> = {}): Create => ({
  type: "CreateAnnotationQueue",
  id: "q1",
  accountId: "a1",
  spaceId: "s1",
  name: "Review",
  instructions: null,
  configIds: ["c1"],
  configsInSpace: ["c1"],
  annotators: [alice],
  assignmentMethod: "ALL",
  sources: [],
  records: [],
  now,
  ...over,
});
const add = (
  sources: RecordSourceInput[],
  records: RecordDraft[],
  held?: ReadonlySet<string>,
): AnnotationQueueCommand => ({ type: "AddRecords", sources, records, ...(held && { held }), now });
const del: AnnotationQueueCommand = { type: "DeleteAnnotationQueue", now };

const { given, history } = scenario(annotationQueueDecider);
const nothing: AnnotationQueueEvent[] = [];
const withRecords = history(create({ sources: [spanSource(2)], records: drafts(2) }));
const deleted = history(create(), del);

describe("annotation queue decider", () => {
  it("given nothing, create yields the queue and, with sources, its records", () => {
    expect(
      given(nothing)
        .when(create())
        .map((e) => e.type),
    ).toEqual(["AnnotationQueueCreated"]);
    expect(withRecords.map((e) => e.type)).toEqual([
      "AnnotationQueueCreated",
      "AnnotationQueueRecordsAdded",
    ]);
  });

  it("a queue needs an annotation config of its space and a known assignment method", () => {
    const c = (over: Partial<Create>) => problem(() => given(nothing).when(create(over)));
    expect(c({ configIds: [], configsInSpace: [] })).toBe("invalid-request");
    expect(c({ configIds: ["c1", "c2"], configsInSpace: ["c1"] })).toBe("unprocessable-entity");
    expect(c({ assignmentMethod: "SOME" })).toBe("invalid-request");
  });

  it("records are assigned to every annotator (ALL) or to the one drawn (RANDOM)", () => {
    const records = (method: string, draw: number) => {
      const events = given(nothing).when(
        create({
          annotators: [alice, bob],
          assignmentMethod: method,
          sources: [spanSource(1)],
          records: [draft("r", draw)],
        }),
      );
      const added = events[1] as Extract<
        AnnotationQueueEvent,
        { type: "AnnotationQueueRecordsAdded" }
      >;
      return added.data.records.map((r) => r.assignees);
    };
    expect(records("ALL", 1)).toEqual([[alice, bob]]);
    expect(records("RANDOM", 1)).toEqual([[bob]]);
    expect(records("RANDOM", 4)).toEqual([[alice]]);
  });

  it("records added later go to the annotators the stream holds now", () => {
    const updated = history(create(), { type: "UpdateAnnotationQueue", annotators: [bob], now });
    const [e] = given(updated).when(add([spanSource(1)], [draft("r9")]));
    expect(e).toMatchObject({ data: { records: [{ id: "r9", assignees: [bob] }] } });
  });

  it("sources: 1 and 2 pass, 0 and 3 are invalid; 500 records pass, 501 invalid", () => {
    const a = (sources: RecordSourceInput[], n: number) =>
      problem(() => given(withRecords).when(add(sources, drafts(n))));
    expect(a([spanSource(1)], 1)).toBe("none");
    expect(a([spanSource(1), spanSource(1)], 2)).toBe("none");
    expect(a([], 0)).toBe("invalid-request");
    expect(a([spanSource(1), spanSource(1), spanSource(1)], 3)).toBe("invalid-request");
    expect(a([spanSource(500)], 500)).toBe("none");
    expect(a([spanSource(501)], 501)).toBe("invalid-request");
  });

  it("a source the queue holds adds nothing, but counts toward the request's limits", () => {
    const held = new Set(drafts(500).map(recordKey));
    const a = (n: number, records: RecordDraft[]) =>
      given(withRecords).when(add([spanSource(n)], records, held));
    expect(a(500, drafts(500))).toEqual([]);
    expect(a(500, [...drafts(499), draft("new")])).toMatchObject([
      { data: { records: [{ id: "new" }] } },
    ]);
    expect(problem(() => a(501, [...drafts(500), draft("new")]))).toBe("invalid-request");
  });

  it("span ranges: exactly 7 days pass, longer or reversed are invalid; empty ids invalid", () => {
    const a = (s: RecordSourceInput) => problem(() => given(withRecords).when(add([s], drafts(1))));
    expect(a(spanSource(1))).toBe("none");
    expect(a(spanSource(1, { end_time: "2026-01-08T00:00:01Z" }))).toBe("invalid-request");
    expect(a(spanSource(1, { start_time: "2026-01-08T00:00:00Z" }))).toBe("invalid-request");
    expect(a(spanSource(1, { ids: [""] }))).toBe("invalid-request");
  });

  it("deleting records ignores ids not in the queue", () => {
    const d = (recordIds: string[], existing: string[]) =>
      given(withRecords).when({ type: "DeleteRecords", recordIds, existing, now });
    expect(d(["r0", "zz"], ["r0"])).toMatchObject([
      { type: "AnnotationQueueRecordsDeleted", data: { record_ids: ["r0"] } },
    ]);
    expect(d(["zz"], [])).toEqual([]);
  });

  it("annotating: names must be configs of the queue (422), each once; 1 to 500 annotations", () => {
    const many = Array.from({ length: 501 }, (_, i) => `c${i}`);
    const annotate = (names: string[], exists = true) =>
      problem(() =>
        given(withRecords).when({
          type: "AnnotateRecord",
          recordId: "r0",
          exists,
          annotator: alice,
          annotations: names.map((name) => ({ name, score: 1, label: null, text: null })),
          configNames: ["accuracy", ...many],
          now,
        }),
      );
    expect(annotate(["accuracy"])).toBe("none");
    // Two values for one config in one request would be two writes of one row.
    expect(annotate(["accuracy", "accuracy"])).toBe("invalid-request");
    expect(annotate(["other"])).toBe("unprocessable-entity");
    expect(annotate([])).toBe("invalid-request");
    expect(annotate(many.slice(0, 500))).toBe("none");
    expect(annotate(many)).toBe("invalid-request");
    expect(annotate(["accuracy"], false)).toBe("resource-not-found");
  });

  it("assigning: 100 users pass, 101 are invalid; an unknown record is not found", () => {
    const assign = (n: number, exists = true) =>
      problem(() =>
        given(withRecords).when({
          type: "AssignRecord",
          recordId: "r1",
          exists,
          assignees: Array(n).fill(alice),
          now,
        }),
      );
    expect(assign(0)).toBe("none");
    expect(assign(100)).toBe("none");
    expect(assign(101)).toBe("invalid-request");
    expect(assign(1, false)).toBe("resource-not-found");
  });

  it("update needs a field, keeps the rest, and checks new configs against the space", () => {
    const u = (over: Partial<Extract<AnnotationQueueCommand, { type: "UpdateAnnotationQueue" }>>) =>
      given(withRecords).when({ type: "UpdateAnnotationQueue", now, ...over });
    expect(problem(() => u({}))).toBe("invalid-request");
    expect(u({ instructions: "read" })[0]!.data).toMatchObject({
      name: "Review",
      instructions: "read",
      annotation_config_ids: ["c1"],
    });
    expect(problem(() => u({ configIds: ["c9"], configsInSpace: [] }))).toBe(
      "unprocessable-entity",
    );
  });

  it("given a deleted queue: update → 404, delete → 404, record commands → 404", () => {
    const when = (c: AnnotationQueueCommand) => problem(() => given(deleted).when(c));
    expect(when({ type: "UpdateAnnotationQueue", name: "x", now })).toBe("resource-not-found");
    expect(when(del)).toBe("resource-not-found");
    expect(when(add([spanSource(1)], drafts(1)))).toBe("resource-not-found");
    expect(when({ type: "DeleteRecords", recordIds: ["r0"], existing: ["r0"], now })).toBe(
      "resource-not-found",
    );
  });
});
