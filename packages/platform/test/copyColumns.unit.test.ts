import { describe, expect, it } from "vitest";
import type { TextColumn } from "@argus/proto/dataset/v1/bulk";
import { columnBatches } from "../src/copyColumns.ts";

/** A binary COPY of text rows, as Postgres writes it: signature, flags, rows, trailer. */
function binaryCopy(rows: readonly (string | null)[][]): Buffer {
  const parts = [Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)];
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length);
    parts.push(count);
    for (const v of row) {
      const len = Buffer.alloc(4);
      const bytes = v === null ? Buffer.alloc(0) : Buffer.from(v, "utf8");
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
