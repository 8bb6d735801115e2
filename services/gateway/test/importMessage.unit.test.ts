import { describe, expect, it } from "vitest";
import { ImportDatasetMessage } from "@argus/proto/dataset/v1/bulk";
import { serializeImportMessage } from "../src/flight/datasets.ts";

/** The upload's own encoding of its messages must be the generated encoder's, byte for byte. */
const generated = (m: ImportDatasetMessage) => Buffer.from(ImportDatasetMessage.encode(m).finish());

describe("serializeImportMessage", () => {
  it("writes a rows message as the generated encoder does, at every length's varint size", () => {
    const rows = [
      "{}",
      "",
      '{"q":"é, 中文, 😀, \\u2028"}',
      `{"q":"${"x".repeat(127 - 8)}"}`, // 127 bytes: the last one-byte length
      `{"q":"${"x".repeat(128 - 8)}"}`,
      `{"q":"${"é".repeat(9000)}"}`, // 18 008 bytes: a three-byte length
      `{"q":"${"y".repeat(2_100_000)}"}`, // past 2^21: a four-byte length
    ];
    for (const fieldsJson of [rows, rows.slice(0, 3), [], ["{}"]]) {
      const m: ImportDatasetMessage = { part: { $case: "rows", value: { fieldsJson } } };
      expect(serializeImportMessage(m).equals(generated(m))).toBe(true);
      expect(ImportDatasetMessage.decode(serializeImportMessage(m))).toEqual(m);
    }
  });

  it("writes the start and the end through the generated encoder", () => {
    const start: ImportDatasetMessage = {
      part: {
        $case: "start",
        value: { spaceId: "s", name: "n", columns: [{ name: "q", kinds: 1 }] },
      },
    };
    const end: ImportDatasetMessage = { part: { $case: "end", value: { rowCount: 3n } } };
    for (const m of [start, end]) expect(serializeImportMessage(m).equals(generated(m))).toBe(true);
  });
});
