import { describe, expect, it } from "vitest";
import { batchesOf, epochNanos, projects, textColumn } from "../src/spans/spanDownload.ts";

describe("span export columns", () => {
  it("times are integer nanoseconds, microseconds kept", () => {
    expect(epochNanos("1970-01-01T00:00:00.000000Z")).toBe("0");
    expect(epochNanos("1970-01-01T00:00:01.000001Z")).toBe("1000001000");
    expect(epochNanos("2026-11-29T12:00:00.123456Z")).toBe(
      (BigInt(Date.parse("2026-11-29T12:00:00Z")) * 1_000_000n + 123_456_000n).toString(),
    );
  });

  it("projected columns: all when none; by name or a dotted prefix, never a partial word", () => {
    expect(projects([], "attributes.llm.model_name")).toBe(true);
    expect(projects(["name"], "name")).toBe(true);
    expect(projects(["name"], "name_other")).toBe(false);
    expect(projects(["attributes"], "attributes.llm.model_name")).toBe(true);
    expect(projects(["attributes.llm"], "attributes.llm.model_name")).toBe(true);
    expect(projects(["attributes.ll"], "attributes.llm.model_name")).toBe(false);
  });

  it("text columns in Arrow Utf8 layout: offsets, UTF-8 bytes, validity only with nulls", () => {
    const col = textColumn(["a", null, "é", ""]);
    expect([
      ...new Int32Array(
        col.offsets.buffer.slice(
          col.offsets.byteOffset,
          col.offsets.byteOffset + col.offsets.byteLength,
        ),
      ),
    ]).toEqual([0, 1, 1, 3, 3]);
    expect(Buffer.from(col.data).toString("utf8")).toBe("aé");
    expect(col.nullCount).toBe(1);
    expect([...col.validity]).toEqual([0b1101]);
    const full = textColumn(["x", "y"]);
    expect(full.validity.length).toBe(0);
    expect(full.nullCount).toBe(0);
    expect(textColumn([]).offsets.byteLength).toBe(4);
  });

  it("batches: a batch ends after the row that reaches the characters' limit", () => {
    const rows = [
      ["ab", "c"],
      ["d", null],
      ["ef", "g"],
    ];
    const counts = (max: number) => [...batchesOf(rows, 2, max)].map((b) => b.rowCount);
    expect(counts(1_000)).toEqual([3]);
    // 3 characters: the first row reaches it; 4: the second row passes it.
    expect(counts(3)).toEqual([1, 2]);
    expect(counts(4)).toEqual([2, 1]);
    expect(counts(1)).toEqual([1, 1, 1]);
    const [first, second] = [...batchesOf(rows, 2, 3)];
    expect(first!.columns).toHaveLength(2);
    expect(Buffer.from(second!.columns[0]!.data).toString()).toBe("def");
    expect(second!.columns[1]!.nullCount).toBe(1);
    expect([...batchesOf([], 2, 3)]).toEqual([]);
  });
});
