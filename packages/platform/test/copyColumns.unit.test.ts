import { describe, expect, it } from "vitest";
import type { TextColumn } from "@argus/proto/dataset/v1/bulk";
import { columnBatches } from "../src/copyColumns.ts";

/** A binary COPY of text rows, as Postgres writes it: signature, flags, rows, trailer. */
function binaryCopy(rows: readonly (string | Buffer | null)[][]): Buffer {
  const parts: Buffer[] = [Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)];
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length);
    parts.push(count);
    for (const v of row) {
      const len = Buffer.alloc(4);
      const bytes = v === null ? Buffer.alloc(0) : typeof v === "string" ? Buffer.from(v) : v;
      len.writeInt32BE(v === null ? -1 : bytes.length);
      parts.push(len, bytes);
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

function values(c: TextColumn, rows: number): (string | null)[] {
  const o = new Int32Array(
    c.offsets.buffer.slice(c.offsets.byteOffset, c.offsets.byteOffset + c.offsets.byteLength),
  );
  return Array.from({ length: rows }, (_, i) =>
    c.validity.length > 0 && (c.validity[i >> 3]! & (1 << (i & 7))) === 0
      ? null
      : Buffer.from(c.data).toString("utf8", o[i], o[i + 1]),
  );
}

async function read(bytes: Buffer, chunk: number, limits = { rows: 1000, bytes: 1 << 20 }) {
  const chunks = async function* () {
    for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
  };
  const out = [];
  for await (const b of columnBatches(chunks(), 2, limits))
    out.push({
      rows: b.rowCount,
      columns: b.columns.map((c) => values(c, b.rowCount)),
      nulls: b.columns.map((c) => c.nullCount),
    });
  return out;
}

const rows = Array.from({ length: 3000 }, (_, i) => [
  `v${i}`,
  i % 7 === 0 ? null : i % 5 === 0 ? "" : `é${"x".repeat(i % 50)}`,
]);

describe("columnBatches: binary COPY rows → text columns in Arrow Utf8 layout", () => {
  it("every value, null and empty ones too, whatever the chunks' size; batches of at most rows", async () => {
    for (const chunk of [1, 7, 4096, 1 << 20]) {
      const got = await read(binaryCopy(rows), chunk, { rows: 1024, bytes: 1 << 20 });
      expect(got.map((b) => b.rows)).toEqual([1024, 1024, 952]);
      expect(got.flatMap((b) => b.columns[0]!)).toEqual(rows.map((r) => r[0]));
      expect(got.flatMap((b) => b.columns[1]!)).toEqual(rows.map((r) => r[1]));
      expect(got[0]!.nulls).toEqual([0, 147]);
    }
  });

  it("a batch ends after the row whose bytes reach the limit", async () => {
    const got = await read(
      binaryCopy([
        ["ab", "c"],
        ["d", null],
        ["ef", "g"],
      ]),
      3,
      { rows: 10, bytes: 3 },
    );
    expect(got.map((b) => b.rows)).toEqual([1, 2]);
    expect(got[1]!.columns).toEqual([
      ["d", "ef"],
      [null, "g"],
    ]);
  });

  it("a COPY cut before its trailer is an error", async () => {
    const whole = binaryCopy(rows.slice(0, 10));
    await expect(read(whole.subarray(0, whole.length - 2), 64)).rejects.toThrow(
      /before its trailer/,
    );
  });
});

describe("columnBatches: bigint and float8 columns → fixed-width little-endian values", () => {
  const int8 = (v: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    return b;
  };
  const float8 = (v: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    return b;
  };
  // More rows than a builder's first buffers hold (1024), so they grow within a batch.
  const n = 2500;
  const ints = Array.from({ length: n }, (_, i) =>
    i % 11 === 3 ? null : BigInt(i) * 1_796_000_000_123_456n - 9_223_372_036_854_775_808n,
  );
  const floats = Array.from({ length: n }, (_, i) => (i % 13 === 5 ? null : i / 7 - 100));
  const copy = binaryCopy(
    ints.map((v, i) => [
      v === null ? null : int8(v),
      `t${i}`,
      floats[i] === null ? null : float8(floats[i]!),
    ]),
  );

  async function readFixed(chunk: number, limits: { rows: number; bytes: number }) {
    const chunks = async function* () {
      for (let at = 0; at < copy.length; at += chunk) yield copy.subarray(at, at + chunk);
    };
    const out: { rows: number; columns: TextColumn[] }[] = [];
    for await (const b of columnBatches(chunks(), 3, limits, new Set([0, 2])))
      out.push({ rows: b.rowCount, columns: b.columns });
    return out;
  }
  const present = (c: TextColumn, i: number) =>
    c.validity.length === 0 || (c.validity[i >> 3]! & (1 << (i & 7))) !== 0;
  const little = (c: TextColumn) => Buffer.from(c.fixed);

  it("each value's 8 bytes turned little-endian, a null 8 zeros under a clear bit, whatever the chunks", async () => {
    for (const chunk of [1, 5, 4096, 1 << 20]) {
      const got = await readFixed(chunk, { rows: 2000, bytes: 1 << 20 });
      expect(got.map((b) => b.rows)).toEqual([2000, 500]);
      const gotInts: (bigint | null)[] = [];
      const gotFloats: (number | null)[] = [];
      for (const b of got) {
        const [i, t, f] = b.columns as [TextColumn, TextColumn, TextColumn];
        expect([i.offsets.length, i.data.length, f.offsets.length]).toEqual([0, 0, 0]);
        expect([i.fixed.length, f.fixed.length]).toEqual([8 * b.rows, 8 * b.rows]);
        expect(t.fixed.length).toBe(0);
        expect(i.nullCount).toBe(
          Array.from({ length: b.rows }, (_, r) => r).filter((r) => !present(i, r)).length,
        );
        for (let r = 0; r < b.rows; r++) {
          gotInts.push(present(i, r) ? little(i).readBigInt64LE(8 * r) : null);
          gotFloats.push(present(f, r) ? little(f).readDoubleLE(8 * r) : null);
          if (!present(i, r)) expect(little(i).readBigInt64LE(8 * r)).toBe(0n);
        }
      }
      expect(gotInts).toEqual(ints);
      expect(gotFloats).toEqual(floats);
    }
  });

  it("a batch's bytes count the fixed-width values too", async () => {
    // A row is 16 bytes of fixed values (8 fewer per null, one row in ~6) and 2–5 of text:
    // 1000 bytes end a batch after 48–60 rows (the text alone would take 200–500).
    const got = await readFixed(4096, { rows: 10_000, bytes: 1000 });
    expect(got.slice(0, -1).every((b) => b.rows >= 48 && b.rows <= 60)).toBe(true);
    expect(got.reduce((sum, b) => sum + b.rows, 0)).toBe(n);
  });

  it("a value of another width than 8 bytes is an error", async () => {
    const bad = binaryCopy([[Buffer.alloc(4), "x", float8(1)]]);
    const chunks = async function* () {
      yield bad;
    };
    const all = async () => {
      for await (const _ of columnBatches(chunks(), 3, { rows: 10, bytes: 100 }, new Set([0])));
    };
    await expect(all()).rejects.toThrow(/4 bytes, not 8/);
  });
});
