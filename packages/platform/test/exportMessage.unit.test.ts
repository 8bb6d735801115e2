import { describe, expect, it } from "vitest";
import { ExportMessage, type TextColumn } from "@argus/proto/dataset/v1/bulk";
import { decodeExportMessage, encodeExportMessage } from "../src/exportMessage.ts";

const generated = (m: ExportMessage) => Buffer.from(ExportMessage.encode(m).finish());

const bytesOf = (n: number, seed: number) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};

const column = (over: Partial<TextColumn>): TextColumn => ({
  offsets: Buffer.alloc(0),
  data: Buffer.alloc(0),
  validity: Buffer.alloc(0),
  nullCount: 0,
  fixed: Buffer.alloc(0),
  ...over,
});

const batch = (rowCount: number, columns: TextColumn[]): ExportMessage => ({
  part: { $case: "batch", value: { rowCount, columns } },
});

describe("encodeExportMessage: the generated encoder's bytes, written once", () => {
  it("batches of every field's presence and of lengths at each varint width's edges", () => {
    const lengths = [0, 1, 127, 128, 16_383, 16_384, 2_097_152];
    const messages: ExportMessage[] = [
      batch(0, []),
      batch(1, [column({})]),
      ...lengths.map((n, k) =>
        batch(n, [
          column({ offsets: bytesOf(n, k), data: bytesOf(n >> 1, k + 1) }),
          column({ validity: bytesOf(n, 7), nullCount: n, fixed: bytesOf(8 * (n % 1000), 3) }),
          column({ nullCount: 300, data: bytesOf(5, 9) }),
        ]),
      ),
    ];
    for (const m of messages) {
      const got = encodeExportMessage(m);
      expect(got.equals(generated(m))).toBe(true);
      expect(generated(ExportMessage.decode(got)).equals(got)).toBe(true);
    }
  });

  it("a header, and a batch with a negative count, go through the generated encoder", () => {
    const header: ExportMessage = {
      part: {
        $case: "header",
        value: { spaceId: "s", versionId: "v", columns: [{ name: "a", kinds: 5 }] },
      },
    };
    expect(encodeExportMessage(header).equals(generated(header))).toBe(true);
    const negative = batch(2, [column({ nullCount: -1, data: bytesOf(3, 1) })]);
    expect(encodeExportMessage(negative).equals(generated(negative))).toBe(true);
    expect(encodeExportMessage({}).equals(generated({}))).toBe(true);
  });
});

describe("decodeExportMessage: the generated decoder's message, a batch's buffers as views", () => {
  const cases: ExportMessage[] = [
    batch(0, []),
    batch(3, [column({})]),
    batch(70_000, [
      column({ offsets: bytesOf(300, 1), data: bytesOf(20_000, 2), validity: bytesOf(129, 3) }),
      column({ nullCount: 2 ** 31 - 1, fixed: bytesOf(80, 4) }),
      column({ nullCount: -5, data: bytesOf(1, 5) }),
    ]),
    {
      part: {
        $case: "header",
        value: { spaceId: "s", versionId: "", columns: [{ name: "a.b", kinds: 17 }] },
      },
    },
    {},
  ];

  it("reads what either encoder wrote as the generated decoder does", () => {
    for (const m of cases) {
      const bytes = generated(m);
      const got = decodeExportMessage(bytes);
      expect(got).toEqual(ExportMessage.decode(bytes));
      expect(generated(got).equals(bytes)).toBe(true);
    }
  });

  it("a batch's buffers are views of the message, not copies", () => {
    const bytes = generated(cases[2]!);
    const got = decodeExportMessage(bytes);
    const data = got.part?.$case === "batch" ? got.part.value.columns[0]!.data : undefined;
    expect(data?.buffer).toBe(bytes.buffer);
  });

  it("unknown fields are skipped; a message cut short or overrunning is an error", () => {
    const m = batch(2, [column({ data: bytesOf(4, 1), nullCount: 1 })]);
    const bytes = generated(m);
    // The same column (data, null_count) with an unknown varint field (15) after it, in a
    // batch with an unknown bytes field (9) before it.
    const column2 = Buffer.concat([
      Buffer.from([(2 << 3) | 2, 4]),
      bytesOf(4, 1),
      Buffer.from([4 << 3, 1, 15 << 3, 0x96, 0x01]),
    ]);
    const batchBytes = Buffer.concat([
      Buffer.from([1 << 3, 2, (9 << 3) | 2, 2, 0xaa, 0xbb, (2 << 3) | 2, column2.length]),
      column2,
    ]);
    const withUnknown = Buffer.concat([Buffer.from([(2 << 3) | 2, batchBytes.length]), batchBytes]);
    expect(decodeExportMessage(withUnknown)).toEqual(ExportMessage.decode(bytes));
    for (let cut = 1; cut < bytes.length; cut++)
      expect(() => decodeExportMessage(bytes.subarray(0, cut))).toThrow();
  });
});
