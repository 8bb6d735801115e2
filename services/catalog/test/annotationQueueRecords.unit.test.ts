import { describe, expect, it } from "vitest";
import {
  newRecords,
  recordKey,
  type RecordDraft,
} from "../src/annotationQueues/annotationQueueRecordRules.ts";

const draft = (id: string, data: Record<string, unknown>, granularity: "SPAN" | "TRACE" = "SPAN") =>
  ({ id, source_type: "SPANS", granularity, data, draw: 0 }) satisfies RecordDraft;

describe("records a queue holds already", () => {
  it("a source is named by its type, granularity and data, whatever the key order", () => {
    expect(recordKey(draft("a", { span_id: "s", trace_id: "t" }))).toBe(
      recordKey(draft("b", { trace_id: "t", span_id: "s" })),
    );
    expect(recordKey(draft("a", { span_id: "s" }))).not.toBe(
      recordKey(draft("a", { span_id: "s" }, "TRACE")),
    );
  });

  it("adds only the records not held, each once", () => {
    const held = new Set([recordKey(draft("x", { span_id: "s1" }))]);
    const drafts = [
      draft("a", { span_id: "s1" }),
      draft("b", { span_id: "s2" }),
      draft("c", { span_id: "s2" }),
    ];
    expect(newRecords(drafts, held).map((d) => d.id)).toEqual(["b"]);
    expect(newRecords([drafts[0]!], held)).toEqual([]);
  });
});
