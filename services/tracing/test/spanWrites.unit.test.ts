import { describe, expect, it } from "vitest";
import { LIMITS } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import {
  decideSpanAnnotations,
  matchIds,
  patchedMetadata,
} from "../src/spans/spanWriteCommands.ts";

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

describe("the SDK's metadata patches", () => {
  it("merge objects key by key, in order; a null sets null; anything else replaces", () => {
    expect(
      patchedMetadata({ a: 1, o: { x: 1, y: 2 }, l: [1] }, [
        { o: { y: null, z: 3 }, l: [2] },
        { a: { now: "object" } },
      ]),
    ).toEqual({ ok: true, value: { a: { now: "object" }, o: { x: 1, y: null, z: 3 }, l: [2] } });
  });

  it("keep the representation: JSON text stays text, none becomes text, an object stays one", () => {
    expect(patchedMetadata('{"a":1}', [{ b: 2 }])).toEqual({ ok: true, value: '{"a":1,"b":2}' });
    expect(patchedMetadata(undefined, [{ b: 2 }])).toEqual({ ok: true, value: '{"b":2}' });
    expect(patchedMetadata(null, [{}])).toEqual({ ok: true, value: "{}" });
    expect(patchedMetadata({ a: 1 }, [{}])).toEqual({ ok: true, value: { a: 1 } });
  });

  it("a span whose metadata is no JSON object takes no patch, and says why", () => {
    expect(patchedMetadata("not json", [{ a: 1 }])).toEqual({
      ok: false,
      error: expect.stringMatching(/^parse_failure/),
    });
    for (const current of ["[1]", "3", [1], 3])
      expect(patchedMetadata(current, [{ a: 1 }])).toEqual({
        ok: false,
        error: expect.stringMatching(/^type_conflict/),
      });
  });
});
