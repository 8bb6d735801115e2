import { describe, expect, it } from "vitest";
import { BULK_DATA_CHARS, bulkDataJson, jsonTextOf, withBusCut } from "../src/index.ts";

const idOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`;
const evaluations = (n: number, explanation = "the values are equal — ✓") => ({
  experiment_id: idOf(0),
  task_id: idOf(1),
  evaluations: Array.from({ length: n }, (_, i) => ({
    run_id: idOf(i),
    name: "exact_match",
    label: "true",
    score: 1,
    explanation,
  })),
  at: "2026-12-04T00:00:00.000Z",
});

describe("withBusCut", () => {
  it("a bulk write's data goes on the bus as its records' ids, stored whole", () => {
    const data = withBusCut(evaluations(500));
    const { parts, bytes, bus } = jsonTextOf(data);
    const stored = parts.join("");
    expect(JSON.parse(stored)).toEqual(data);
    expect(bytes).toBe(Buffer.byteLength(stored));
    expect(JSON.parse(bus!)).toEqual({
      experiment_id: idOf(0),
      task_id: idOf(1),
      evaluations: Array.from({ length: 500 }, (_, i) => ({ run_id: idOf(i) })),
      at: "2026-12-04T00:00:00.000Z",
    });
    // The audit log's entry from what the bus carries is the one from the stored data.
    expect(bulkDataJson(JSON.parse(bus!))).toBe(bulkDataJson(JSON.parse(stored)));
  });

  it("data at the bound, or not certainly over it, goes whole", () => {
    const one = evaluations(1, "");
    const pad = BULK_DATA_CHARS - JSON.stringify(one).length;
    for (const extra of [0, 1]) {
      const data = withBusCut(evaluations(1, "x".repeat(pad + extra)));
      expect(JSON.stringify(data).length).toBe(BULK_DATA_CHARS + extra);
      expect(jsonTextOf(data).bus).toBeUndefined();
    }
    expect(jsonTextOf(withBusCut(evaluations(3))).bus).toBeUndefined();
  });
});
