import { describe, expect, it } from "vitest";
import { problem } from "@argus/eventstore/testing";
import { decideAnnotations, namesOf, type ConfigRules } from "@argus/spaces";

const configs: ConfigRules[] = [
  { name: "verdict", type: "CATEGORICAL", labels: ["good", "bad"] },
  { name: "quality", type: "CONTINUOUS", labels: [], minimumScore: 0, maximumScore: 1 },
  { name: "note", type: "FREEFORM", labels: [] },
];
const present = new Set(["r1", "r2"]);
const IGNORE = { unmatched: "ignore" } as const;
const REFUSE = { unmatched: "refuse", what: "span" } as const;
const record = (recordId: string, ...values: object[]) => ({
  recordId,
  values: values as { name: string }[],
});

describe("annotation rules", () => {
  it("upserts by name; a record named twice merges its values in order", () => {
    expect(
      decideAnnotations(
        [
          record("r1", { name: "verdict", label: "good" }, { name: "quality", score: 0.5 }),
          record("r2", { name: "note", text: "hm" }),
          record("r1", { name: "verdict", label: "bad" }),
        ],
        configs,
        present,
        IGNORE,
      ),
    ).toEqual([
      { record_id: "r1", name: "verdict", label: "bad" },
      { record_id: "r1", name: "quality", score: 0.5 },
      { record_id: "r2", name: "note", text: "hm" },
    ]);
    expect(
      namesOf([record("r1", { name: "a" }, { name: "b" }), record("r2", { name: "a" })]),
    ).toEqual(["a", "b"]);
  });

  it("refuses unknown names, labels and scores outside the config, repeats", () => {
    const one = (r: ReturnType<typeof record>) =>
      problem(() => decideAnnotations([r], configs, present, IGNORE));
    expect(one(record("r1", { name: "nope", text: "x" }))).toBe("validation-error");
    // The values of a record that names nothing are checked all the same.
    expect(one(record("r9", { name: "nope", text: "x" }))).toBe("validation-error");
    expect(one(record("r1", { name: "verdict", label: "meh" }))).toBe("validation-error");
    expect(one(record("r1", { name: "quality", score: 1.5 }))).toBe("validation-error");
    expect(one(record("r1", { name: "quality", score: -0.1 }))).toBe("validation-error");
    expect(one(record("r1", { name: "quality", score: 1 }))).toBe("none");
    expect(one(record("r1", { name: "note" }, { name: "note" }))).toBe("validation-error");
    expect(one(record("r1"))).toBe("validation-error");
  });

  it("a record id that names nothing: left out (examples, runs) or 404 for the whole request (spans)", () => {
    const records = [record("r1", { name: "note", text: "kept" }), record("r9", { name: "note" })];
    expect(decideAnnotations(records, configs, present, IGNORE)).toEqual([
      { record_id: "r1", name: "note", text: "kept" },
    ]);
    expect(decideAnnotations([record("r9", { name: "note" })], configs, present, IGNORE)).toEqual(
      [],
    );
    expect(problem(() => decideAnnotations(records, configs, present, REFUSE))).toBe(
      "resource-not-found",
    );
    // Invalid values are a 422 before any record is looked for.
    expect(
      problem(() => decideAnnotations([record("r9", { name: "nope" })], configs, present, REFUSE)),
    ).toBe("validation-error");
  });

  it("1 and 1000 records pass; 0 and 1001 are 422", () => {
    const many = (n: number) =>
      Array.from({ length: n }, () => record("r1", { name: "note", text: "t" }));
    const decide = (n: number) =>
      problem(() => decideAnnotations(many(n), configs, present, IGNORE));
    expect(decide(1)).toBe("none");
    expect(decide(1000)).toBe("none");
    expect(decide(0)).toBe("validation-error");
    expect(decide(1001)).toBe("validation-error");
  });
});
