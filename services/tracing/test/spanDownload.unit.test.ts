import { describe, expect, it } from "vitest";
import type { PoolClient } from "pg";
import { Client } from "pg";
import { projects, respellJson, textColumn } from "../src/spans/spanDownload.ts";
import { withLiterals } from "../src/storage/postgres.ts";

describe("span export columns", () => {
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

  it("JSON as the store spells it is respelled as JavaScript does; nulls stay null", () => {
    const col = respellJson(
      textColumn(['{"a": 1, "b": [1.0, 2]}', null, "1.50", '"x"', "null"]),
      5,
    );
    const o = new Int32Array(col.offsets.buffer.slice(col.offsets.byteOffset));
    const text = (i: number) => Buffer.from(col.data).toString("utf8", o[i], o[i + 1]);
    expect([0, 2, 3].map(text)).toEqual(['{"a":1,"b":[1,2]}', "1.5", "x"]);
    expect(col.nullCount).toBe(2);
    expect([...col.validity]).toEqual([0b01101]);
  });
});

describe("parameters written in as literals (the export's COPY takes none)", () => {
  const client = new Client() as unknown as PoolClient;

  it("text and text arrays escaped; $10 is not $1 followed by 0", () => {
    const params = ["it's", ["a", 'b"c', "d\\e", "'"], "3", "4", "5", "6", "7", "8", "9", "ten"];
    expect(
      withLiterals(client, "x = $1::text and y = any($2::text[]) and z = $10::text", params),
    ).toBe(
      // The E-string reads as {"a","b\"c","d\\e","'"}: the array of a, b"c, d\e and '.
      String.raw`x = 'it''s'::text and y = any( E'{"a","b\\"c","d\\\\e","''"}'::text[]) and z = 'ten'::text`,
    );
  });

  it("a value naming a placeholder is not read again; a missing parameter, a number that is not finite or another type throws", () => {
    expect(withLiterals(client, "$1 $2", ["$2", "b"])).toBe("'$2' 'b'");
    expect(() => withLiterals(client, "$2", ["a"])).toThrow(/no parameter \$2/);
    expect(withLiterals(client, "x - $1 < $2", [-1, 4294967296])).toBe("x - (-1) < (4294967296)");
    expect(() => withLiterals(client, "$1", [Number.NaN])).toThrow(/cannot be written/);
    expect(() => withLiterals(client, "$1", [true])).toThrow(/cannot be written/);
  });
});
