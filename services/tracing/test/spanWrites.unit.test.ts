import { describe, expect, it } from "vitest";
import { LIMITS } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import { decideSpanAnnotations, matchIds } from "../src/spans/spanWriteCommands.ts";

const configs = [{ name: "quality", type: "CATEGORICAL", labels: ["good", "bad"] }];

describe("the SDK's span updates: what is written", () => {
  it("span ids: distinct, in the order first named, matched or not", () => {
    expect(matchIds(["b", "x", "a", "b", "y", "x"], new Set(["a", "b"]))).toEqual({
      matched: ["b", "a"],
      unmatched: ["x", "y"],
    });
  });

  it("annotations: unmatched ids are left out; values of one span and name merge in order, across the record limit", () => {
    const n = LIMITS.ANNOTATED_RECORDS_MAX;
    const values = [
      { spanId: "a", name: "quality", label: "good", text: "first" },
      ...Array.from({ length: n }, () => ({ spanId: "x", name: "quality", label: "bad" })),
      // In the second slice: merges with the first value of span a.
      { spanId: "a", name: "quality", score: 2 },
    ];
    expect(decideSpanAnnotations(values, configs, new Set(["a"]))).toEqual([
      { record_id: "a", name: "quality", label: "good", text: "first", score: 2 },
    ]);
  });

  it("annotations keep to the space's configs, matched or not (422)", () => {
    for (const v of [
      { spanId: "x", name: "other", label: "good" },
      { spanId: "a", name: "quality", label: "great" },
    ]) {
      let err: unknown;
      try {
        decideSpanAnnotations([v], configs, new Set(["a"]));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).type).toBe("validation-error");
    }
  });
});
