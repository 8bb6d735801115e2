import {
  Bool,
  DateDay,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  LargeUtf8,
  List,
  Null,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMillisecond,
  Utf8,
  makeData,
  vectorFromArray,
  type DataType,
} from "apache-arrow";
import { describe, expect, it } from "vitest";
import { rowsJson, uploadColumns, type UploadColumn } from "../src/flight/uploadColumns.ts";

/**
 * `rowsJson` writes plain Utf8 columns straight from their Arrow bytes. The reference here is
 * how every row was written before: each column's value read through `Vector.get` and its
 * `json` (which the other columns still use), joined as text. Every output must be byte-equal.
 */
function referenceRows(
  batch: RecordBatch,
  columns: readonly UploadColumn[],
  from: number,
  to: number,
  base: number,
): string[] {
  const rows: string[] = [];
  for (let row = from; row < to; row++) {
    const fields: string[] = [];
    for (const c of columns) {
      const value = c.json(batch.getChild(c.name)!, row, base);
      if (value !== undefined) fields.push(`${JSON.stringify(c.name)}:${value}`);
    }
    rows.push(`{${fields.join(",")}}`);
  }
  return rows;
}

const TEXTS: (string | null)[] = [
  'quote " and backslash \\ and slash /',
  "controls \n\t\r\b\f \u0001 \u001f, and DEL \u007f",
  "é, 中文, an astral 😀, U+2028 \u2028 and U+2029 \u2029",
  null,
  "",
  "a lone surrogate \ud800 (Arrow's encoder writes U+FFFD for it)",
  '{"k": 1}',
  "plain text",
];
const N = TEXTS.length;

function col(type: DataType, values: unknown[]) {
  return vectorFromArray(values, type);
}

const table = new Table({
  text: col(new Utf8(), TEXTS),
  'naïve "name"': col(
    new Utf8(),
    TEXTS.map((t, i) => (i % 2 ? t : `x${i}`)),
  ),
  ascii: col(
    new Utf8(),
    TEXTS.map((_, i) => (i === 2 ? null : `row ${i}`)),
  ),
  metadata: col(new Utf8(), TEXTS),
  dict: col(new Dictionary(new Utf8(), new Int32()), TEXTS),
  large: col(new LargeUtf8(), TEXTS),
  i32: col(new Int32(), [1, -2, null, 2147483647, 0, 5, 6, 7]),
  i64: col(new Int64(), [
    2n ** 53n + 1n,
    -(2n ** 63n),
    null,
    2n ** 53n - 1n,
    0n,
    5n,
    6n,
    9007199254740993n,
  ]),
  f64: col(new Float64(), [0.1, NaN, Infinity, -Infinity, -0, 1e21, null, 1.5e-7]),
  bool: col(new Bool(), [true, false, null, true, false, true, false, true]),
  ts: col(new TimestampMillisecond(), [0, 1732900000123, null, -1, 2, 3, 4, 5]),
  day: col(new DateDay(), [
    new Date(0),
    new Date(86400000 * 3),
    null,
    null,
    null,
    null,
    null,
    null,
  ]),
  list: col(new List(new Field("item", new Int32(), true)), [
    [1, null, 3],
    null,
    [],
    [4],
    null,
    null,
    null,
    [7],
  ]),
  struct: col(new Struct([new Field("a", new Utf8(), true), new Field("b", new Int32(), true)]), [
    { a: 'x"y', b: 1 },
    null,
    { a: "é😀", b: null },
    { a: null, b: 4 },
    null,
    null,
    null,
    { a: "", b: 0 },
  ]),
  nothing: col(
    new Null(),
    Array.from({ length: N }, () => null),
  ),
});

const columns = uploadColumns(table.schema, { skip: new Set() });

/** A one-column batch of Utf8 values given as raw bytes (which may not be UTF-8). */
function rawUtf8Batch(values: (Uint8Array | null)[]): RecordBatch {
  const offsets = new Int32Array(values.length + 1);
  values.forEach((v, i) => (offsets[i + 1] = offsets[i]! + (v?.length ?? 0)));
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => v !== null && (nullBitmap[i >> 3]! |= 1 << (i & 7)));
  const data = makeData({
    type: new Utf8(),
    length: values.length,
    nullCount: values.filter((v) => v === null).length,
    nullBitmap,
    valueOffsets: offsets,
    data: Buffer.concat(values.map((v) => v ?? new Uint8Array())),
  });
  const schema = new Schema([new Field("q", new Utf8(), true)]);
  return new RecordBatch(
    schema,
    makeData({
      type: new Struct(schema.fields),
      length: values.length,
      nullCount: 0,
      children: [data],
    }),
  );
}

describe("rowsJson straight from the Arrow bytes", () => {
  const batch = table.batches[0]!;

  it("writes every column type byte for byte as the value-by-value conversion did", () => {
    const rows = rowsJson(batch, columns, 0, N, 0);
    expect(rows).toEqual(referenceRows(batch, columns, 0, N, 0));
    expect(columns.filter((c) => c.plainUtf8).map((c) => c.name)).toEqual([
      "text",
      'naïve "name"',
      "ascii",
    ]);
    const first = JSON.parse(rows[0]!) as Record<string, unknown>;
    expect(first.text).toBe(TEXTS[0]);
    // An int64 beyond 2^53 keeps its digits (a JSON number Postgres holds exactly).
    expect(rows[0]).toContain('"i64":9007199254740993,');
    const second = JSON.parse(rows[1]!) as Record<string, unknown>;
    expect(second.text).toBe(TEXTS[1]);
    expect(second.f64).toBeUndefined(); // NaN is no value
    const third = JSON.parse(rows[2]!) as Record<string, unknown>;
    expect(third.text).toBe(TEXTS[2]);
    expect(third).not.toHaveProperty("ascii");
    expect(JSON.parse(rows[5]!).text).toBe(
      "a lone surrogate \ufffd (Arrow's encoder writes U+FFFD for it)",
    );
  });

  it("writes any slice of rows, of a batch that is itself a slice", () => {
    expect(rowsJson(batch, columns, 2, 5, 40)).toEqual(referenceRows(batch, columns, 2, 5, 40));
    const sliced = table.slice(3, 7).batches[0]!;
    expect(sliced.data.offset + sliced.getChild("text")!.data[0]!.offset).toBeGreaterThan(0);
    expect(rowsJson(sliced, columns, 0, 4, 3)).toEqual(referenceRows(sliced, columns, 0, 4, 3));
    expect(rowsJson(sliced, columns, 1, 3, 3)).toEqual(referenceRows(sliced, columns, 1, 3, 3));
  });

  it("writes a row with no value as {} and one text of any length", () => {
    const big = `${'\u0001"x\\é😀'.repeat(200_000)}end`; // escapes past the first scratch size
    const t = new Table({ q: vectorFromArray([null, big, "short"], new Utf8()) });
    const cols = uploadColumns(t.schema, { skip: new Set() });
    const rows = rowsJson(t.batches[0]!, cols, 0, 3, 0);
    expect(rows).toEqual(referenceRows(t.batches[0]!, cols, 0, 3, 0));
    expect(rows[0]).toBe("{}");
    expect(JSON.parse(rows[1]!).q).toBe(big);
    expect(rows[2]).toBe('{"q":"short"}');
  });

  it("escapes every byte JSON escapes, wherever it falls in a word, and only those", () => {
    // One byte in ASCII text, at each offset from a column's start; the slices are read four
    // bytes at a time where aligned, so each byte is tried in every lane and in the unaligned
    // head and tail. Bytes from 0x80 up appear as parts of UTF-8 sequences.
    const texts: string[] = [];
    for (let b = 1; b < 0x80; b++)
      for (let at = 0; at < 9; at++)
        texts.push(`${"a".repeat(at)}${String.fromCharCode(b)}bcdefghijk`);
    for (const c of ["é", "\u00ff", "€", "😀", "\u07ff"])
      for (let at = 0; at < 5; at++) texts.push(`${"a".repeat(at)}${c}x`);
    for (let i = 0; i < texts.length; i += 1) {
      const t = new Table({ q: vectorFromArray([texts[i]!], new Utf8()) });
      const cols = uploadColumns(t.schema, { skip: new Set() });
      const rows = rowsJson(t.batches[0]!, cols, 0, 1, 0);
      expect(rows).toEqual(referenceRows(t.batches[0]!, cols, 0, 1, 0));
    }
    // Many values in one slice: a single escape anywhere makes the whole slice escaped.
    const t = new Table({ q: vectorFromArray(texts, new Utf8()) });
    const cols = uploadColumns(t.schema, { skip: new Set() });
    const all = t.batches[0]!;
    expect(rowsJson(all, cols, 0, texts.length, 0)).toEqual(
      referenceRows(all, cols, 0, texts.length, 0),
    );
    for (let from = 0; from + 7 < texts.length; from += 97)
      expect(rowsJson(all, cols, from, from + 7, 0)).toEqual(
        referenceRows(all, cols, from, from + 7, 0),
      );
  });

  it("reads bytes that are not UTF-8 as Vector.get does (U+FFFD)", () => {
    const b = rawUtf8Batch([
      new Uint8Array([0x61, 0xff, 0x62]),
      new Uint8Array([0xed, 0xa0, 0x80]), // an encoded surrogate
      new Uint8Array([0xe2, 0x82]), // cut short
      Buffer.from("fine"),
    ]);
    const cols = uploadColumns(b.schema, { skip: new Set() });
    const rows = rowsJson(b, cols, 0, 4, 0);
    expect(rows).toEqual(referenceRows(b, cols, 0, 4, 0));
    expect(JSON.parse(rows[0]!).q).toBe("a\ufffdb");
  });

  it("refuses U+0000 as before, naming the row, but not in a null value's bytes", () => {
    const b = rawUtf8Batch([Buffer.from("ok"), Buffer.from("a\0b"), null]);
    const cols = uploadColumns(b.schema, { skip: new Set() });
    expect(() => rowsJson(b, cols, 0, 3, 10)).toThrow(/column "q", row 11 contains U\+0000/);
    expect(rowsJson(b, cols, 0, 1, 10)).toEqual(['{"q":"ok"}']);
    const hidden = rawUtf8Batch([Buffer.from("ok"), null]);
    // The null value's bytes hold a NUL that no value reads.
    const data = hidden.getChild("q")!.data[0]!;
    const withNul = rawUtf8Batch([Buffer.from("ok"), Buffer.from("\0")]);
    const nulData = withNul.getChild("q")!.data[0]!;
    const masked = makeData({
      type: new Utf8(),
      length: 2,
      nullCount: 1,
      nullBitmap: data.nullBitmap,
      valueOffsets: nulData.valueOffsets,
      data: nulData.values,
    });
    const mb = new RecordBatch(
      hidden.schema,
      makeData({
        type: new Struct(hidden.schema.fields),
        length: 2,
        nullCount: 0,
        children: [masked],
      }),
    );
    expect(rowsJson(mb, cols, 0, 2, 0)).toEqual(['{"q":"ok"}', "{}"]);
  });
});
