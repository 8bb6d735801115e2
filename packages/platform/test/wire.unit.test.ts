import { describe, expect, it } from "vitest";
import {
  lengthDelimitedSize,
  varintBytes,
  varintSize,
  writeLengthHeader,
  writeVarint,
} from "../src/wire.ts";

/** Each varint width's edges, with their bytes as protobuf's encoding guide spells them. */
const VARINTS: [number, string][] = [
  [0, "00"],
  [1, "01"],
  [127, "7f"],
  [128, "8001"],
  [300, "ac02"],
  [16_383, "ff7f"],
  [16_384, "808001"],
  [2 ** 21 - 1, "ffff7f"],
  [2 ** 21, "80808001"],
  [2 ** 28 - 1, "ffffff7f"],
  [2 ** 28, "8080808001"],
  [2 ** 32 - 1, "ffffffff0f"],
];

describe("varints", () => {
  it.each(VARINTS)("%d is %s, varintSize its length, written in place", (n, hex) => {
    const want = Buffer.from(hex, "hex");
    expect(varintBytes(n).equals(want)).toBe(true);
    expect(varintSize(n)).toBe(want.length);
    const out = Buffer.alloc(want.length + 2, 0xee);
    expect(writeVarint(out, 1, n)).toBe(1 + want.length);
    expect(out.equals(Buffer.concat([Buffer.from([0xee]), want, Buffer.from([0xee])]))).toBe(true);
  });
});

describe("length-delimited fields", () => {
  it("a key (field << 3 | 2) and the length before the bytes, all counted by lengthDelimitedSize", () => {
    for (const [field, length, hex] of [
      [1, 0, "0a00"],
      [2, 127, "127f"],
      [15, 128, "7a8001"],
      [5, 2 ** 21, "2a80808001"],
    ] as const) {
      const want = Buffer.from(hex, "hex");
      const out = Buffer.alloc(want.length);
      expect(writeLengthHeader(out, 0, field, length)).toBe(want.length);
      expect(out.equals(want)).toBe(true);
      expect(lengthDelimitedSize(length)).toBe(want.length + length);
    }
  });

  it("refuse a field number whose key is not one byte (1 to 15)", () => {
    const out = Buffer.alloc(8);
    expect(() => writeLengthHeader(out, 0, 0, 1)).toThrow(RangeError);
    expect(() => writeLengthHeader(out, 0, 16, 1)).toThrow(RangeError);
  });
});
