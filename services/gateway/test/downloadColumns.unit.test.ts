import { describe, expect, it } from "vitest";
import type { TextColumn } from "@argus/proto/dataset/v1/bulk";
import { int64s } from "../src/flight/downloadColumns.ts";

/** Values → a text column in Arrow Utf8 layout, as the services send it. */
function column(values: readonly (string | null)[]): TextColumn {
  const offsets = new Int32Array(values.length + 1);
  const parts: Buffer[] = [];
  const validity = new Uint8Array((values.length + 7) >> 3);
  let at = 0;
  values.forEach((v, i) => {
    if (v !== null) {
      const b = Buffer.from(v, "latin1");
      parts.push(b);
      at += b.length;
      validity[i >> 3]! |= 1 << (i & 7);
    }
    offsets[i + 1] = at;
  });
  const nulls = values.filter((v) => v === null).length;
  return {
    offsets: Buffer.from(offsets.buffer),
    data: Buffer.concat(parts),
    validity: Buffer.from(nulls > 0 ? validity : new Uint8Array(0)),
    nullCount: nulls,
    fixed: Buffer.alloc(0),
  };
}

describe("int64s: integer text → int64 without a BigInt per value", () => {
  it("every width up to 19 digits, at the edges of each 32-bit word, the same as BigInt", () => {
    const values = [
      "0",
      "7",
      "000042",
      "999999999",
      "1000000000",
      "4294967295",
      "4294967296",
      "9007199254740993",
      "1796000000123456000",
      "8999999999999999999",
      "9223372036854775807",
      "-1",
      "-9223372036854775808",
      "18446744073709551615",
    ];
    const got = int64s(column(values), values.length);
    expect([...got]).toEqual(values.map((v) => BigInt.asIntN(64, BigInt(v))));
  });

  it("offsets at an odd address (a view into a gRPC message) are read the same", () => {
    const c = column(["12", "3456789012345"]);
    const odd = Buffer.concat([Buffer.alloc(1), c.offsets]).subarray(1);
    expect([...int64s({ ...c, offsets: odd }, 2)]).toEqual([12n, 3456789012345n]);
  });

  it("a null is 0 under its validity bit", () => {
    expect([...int64s(column(["5", null, "6"]), 3)]).toEqual([5n, 0n, 6n]);
  });

  it("random nanosecond times and counts", () => {
    const values = Array.from({ length: 2000 }, (_, i) =>
      String(BigInt(Math.floor(Math.random() * 2 ** 52)) * BigInt(1 + (i % 2000))),
    );
    expect([...int64s(column(values), values.length)]).toEqual(
      values.map((v) => BigInt.asIntN(64, BigInt(v))),
    );
  });
});
