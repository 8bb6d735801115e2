import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  annotationQueueStateOf,
  decideAnnotationQueue,
  initialAnnotationQueueState,
  type AnnotationQueueCommand,
  type QueueRecord,
  type RecordSourceInput,
} from "../src/domain/annotationQueue.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const alice = { user_id: "u1", email: "alice@example.com" };
const record = (id: string): QueueRecord => ({
  id,
  source_type: "SPANS",
  granularity: "SPAN",
  data: { project_id: "p1", "context.span_id": id },
  assignees: [alice],
});
const spanSource = (n: number, over: Partial<RecordSourceInput> = {}): RecordSourceInput => ({
  record_type: "SPAN",
  start_time: "2026-01-01T00:00:00Z",
  end_time: "2026-01-08T00:00:00Z",
  ids: Array.from({ length: n }, (_, i) => `s${i}`),
  ...over,
});
const records = (n: number) => Array.from({ length: n }, (_, i) => record(`r${i}`));
type Create = Extract<AnnotationQueueCommand, { type: "CreateAnnotationQueue" }>;
const create = (over: Partial<Create> = {}): Create => ({
  type: "CreateAnnotationQueue",
  id: "q1",
  accountId: "a1",
  spaceId: "s1",
  name: "Review",
  instructions: null,
  configIds: ["c1"],
  annotators: [alice],
  assignmentMethod: "ALL",
  sources: [],
  records: [],
  now,
  ...over,
});
const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
};
const withRecords = () =>
  annotationQueueStateOf(
    decideAnnotationQueue(
      create({ sources: [spanSource(2)], records: records(2) }),
      initialAnnotationQueueState,
    ),
  );

describe("annotation queue decider", () => {
  it("given nothing, create yields the queue and, with sources, its records", () => {
    expect(decideAnnotationQueue(create(), initialAnnotationQueueState).map((e) => e.type)).toEqual(
      ["AnnotationQueueCreated"],
    );
    const events = decideAnnotationQueue(
      create({ sources: [spanSource(2)], records: records(2) }),
      initialAnnotationQueueState,
    );
    expect(events.map((e) => e.type)).toEqual([
      "AnnotationQueueCreated",
      "AnnotationQueueRecordsAdded",
    ]);
  });

  it("a queue needs an annotation config and a known assignment method", () => {
    expect(
      problem(() => decideAnnotationQueue(create({ configIds: [] }), initialAnnotationQueueState)),
    ).toBe("invalid-request");
    expect(
      problem(() =>
        decideAnnotationQueue(create({ assignmentMethod: "SOME" }), initialAnnotationQueueState),
      ),
    ).toBe("invalid-request");
  });

  it("sources: 1 and 2 pass, 0 and 3 are invalid; 500 records pass, 501 invalid", () => {
    const state = withRecords();
    const add = (sources: RecordSourceInput[], n: number) =>
      problem(() =>
        decideAnnotationQueue({ type: "AddRecords", sources, records: records(n), now }, state),
      );
    expect(add([spanSource(1)], 1)).toBe("none");
    expect(add([spanSource(1), spanSource(1)], 2)).toBe("none");
    expect(add([], 0)).toBe("invalid-request");
    expect(add([spanSource(1), spanSource(1), spanSource(1)], 3)).toBe("invalid-request");
    expect(add([spanSource(500)], 500)).toBe("none");
    expect(add([spanSource(501)], 501)).toBe("invalid-request");
  });

  it("span ranges: exactly 7 days pass, longer or reversed are invalid; empty ids invalid", () => {
    const state = withRecords();
    const add = (s: RecordSourceInput) =>
      problem(() =>
        decideAnnotationQueue(
          { type: "AddRecords", sources: [s], records: records(1), now },
          state,
        ),
      );
    expect(add(spanSource(1))).toBe("none");
    expect(add(spanSource(1, { end_time: "2026-01-08T00:00:01Z" }))).toBe("invalid-request");
    expect(add(spanSource(1, { start_time: "2026-01-08T00:00:00Z" }))).toBe("invalid-request");
    expect(add(spanSource(1, { ids: [""] }))).toBe("invalid-request");
  });

  it("deleting records ignores ids not in the queue", () => {
    const state = withRecords();
    const events = decideAnnotationQueue(
      { type: "DeleteRecords", recordIds: ["r0", "zz"], now },
      state,
    );
    expect(events).toMatchObject([
      { type: "AnnotationQueueRecordsDeleted", data: { record_ids: ["r0"] } },
    ]);
    expect(decideAnnotationQueue({ type: "DeleteRecords", recordIds: ["zz"], now }, state)).toEqual(
      [],
    );
  });

  it("annotating: names must be configs of the queue (422); 1 to 500 annotations", () => {
    const state = withRecords();
    const annotate = (names: string[], recordId = "r0") =>
      problem(() =>
        decideAnnotationQueue(
          {
            type: "AnnotateRecord",
            recordId,
            annotator: alice,
            annotations: names.map((name) => ({ name, score: 1, label: null, text: null })),
            configNames: ["accuracy"],
            now,
          },
          state,
        ),
      );
    expect(annotate(["accuracy"])).toBe("none");
    expect(annotate(["other"])).toBe("unprocessable-entity");
    expect(annotate([])).toBe("invalid-request");
    expect(annotate(Array(500).fill("accuracy"))).toBe("none");
    expect(annotate(Array(501).fill("accuracy"))).toBe("invalid-request");
    expect(annotate(["accuracy"], "nope")).toBe("resource-not-found");
  });

  it("assigning: 100 users pass, 101 are invalid", () => {
    const state = withRecords();
    const assign = (n: number) =>
      problem(() =>
        decideAnnotationQueue(
          { type: "AssignRecord", recordId: "r1", assignees: Array(n).fill(alice), now },
          state,
        ),
      );
    expect(assign(0)).toBe("none");
    expect(assign(100)).toBe("none");
    expect(assign(101)).toBe("invalid-request");
  });

  it("update needs a field and keeps the rest; deleted queues are not found", () => {
    const state = withRecords();
    expect(
      problem(() => decideAnnotationQueue({ type: "UpdateAnnotationQueue", now }, state)),
    ).toBe("invalid-request");
    expect(
      decideAnnotationQueue({ type: "UpdateAnnotationQueue", instructions: "read", now }, state)[0]!
        .data,
    ).toMatchObject({ name: "Review", instructions: "read", annotation_config_ids: ["c1"] });
    const deleted = annotationQueueStateOf([
      ...decideAnnotationQueue(create(), initialAnnotationQueueState),
      {
        type: "AnnotationQueueDeleted",
        data: { id: "q1", space_id: "s1", deleted_at: now.toISOString() },
      },
    ]);
    expect(
      problem(() => decideAnnotationQueue({ type: "DeleteAnnotationQueue", now }, deleted)),
    ).toBe("resource-not-found");
  });
});
