import { describe, expect, it } from "vitest";
import { problem } from "@argus/eventstore/testing";
import { decideAnnotations, namesOf, type ConfigRules } from "@argus/spaces";

const configs: ConfigRules[] = [
  { name: "verdict", type: "CATEGORICAL", labels: ["good", "bad"] },
  { name: "quality", type: "CONTINUOUS", labels: [], minimumScore: 0, maximumScore: 1 },
  { name: "note", type: "FREEFORM", labels: [] },
];
const present = new Set(["r1", "r2"]);
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

  it("refuses unknown names, foreign records, labels and scores outside the config, repeats", () => {
    const one = (r: ReturnType<typeof record>) =>
      problem(() => decideAnnotations([r], configs, present));
    expect(one(record("r1", { name: "nope", text: "x" }))).toBe("validation-error");
    expect(one(record("r9", { name: "note", text: "x" }))).toBe("validation-error");
    expect(one(record("r1", { name: "verdict", label: "meh" }))).toBe("validation-error");
    expect(one(record("r1", { name: "quality", score: 1.5 }))).toBe("validation-error");
    expect(one(record("r1", { name: "quality", score: -0.1 }))).toBe("validation-error");
    expect(one(record("r1", { name: "quality", score: 1 }))).toBe("none");
    expect(one(record("r1", { name: "note" }, { name: "note" }))).toBe("validation-error");
    expect(one(record("r1"))).toBe("validation-error");
  });

  it("1 and 1000 records pass; 0 and 1001 are 422", () => {
    const many = (n: number) =>
      Array.from({ length: n }, () => record("r1", { name: "note", text: "t" }));
    expect(problem(() => decideAnnotations(many(1), configs, present))).toBe("none");
    expect(problem(() => decideAnnotations(many(1000), configs, present))).toBe("none");
    expect(problem(() => decideAnnotations(many(0), configs, present))).toBe("validation-error");
    expect(problem(() => decideAnnotations(many(1001), configs, present))).toBe("validation-error");
  });
});
