import {
  Field,
  Schema,
  Utf8,
  tableFromArrays,
  tableToIPC,
  vectorFromArray,
  Struct,
  Int32,
  Binary,
  Message,
  Table,
  tableFromIPC,
  type RecordBatch,
} from "apache-arrow";
import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { ColumnKind, type TextColumn } from "@argus/proto/dataset/v1/bulk";
import { FlightDescriptor, FlightDescriptor_DescriptorType } from "@argus/proto/flight";
import { batchFrame, downloadSchema } from "../src/flight/downloadColumns.ts";
import { decodeFlightData, encodeFlightData, type FlightData } from "../src/flight/flightData.ts";
import { readRecordBatches, recordBatchFrame, schemaFrame } from "../src/flight/ipc.ts";
import { protocolOf } from "../src/flight/singlePort.ts";
import { rowsJson, uploadColumns } from "../src/flight/uploadColumns.ts";

/** An IPC stream's messages as FlightData (header and body apart), as pyarrow sends them. */
function flightDataOf(ipc: Uint8Array): FlightData[] {
  const out: FlightData[] = [];
  let at = 0;
  const view = new DataView(ipc.buffer, ipc.byteOffset, ipc.byteLength);
  while (at + 8 <= ipc.length) {
    const len = view.getInt32(at + 4, true);
    if (len === 0) break;
    const header = ipc.subarray(at + 8, at + 8 + len);
    // The body length is in the header; reading it back through our own decoder checks both.
    const frame = decodeFlightData(encodeFlightData({ header }));
    const bodyLength = Number(Message.decode(header).bodyLength);
    out.push({ ...frame, body: ipc.subarray(at + 8 + len, at + 8 + len + bodyLength) });
    at += 8 + len + bodyLength;
  }
  return out;
}

async function* iterate<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const i of items) yield i;
}

async function batchesOf(messages: FlightData[]): Promise<RecordBatch[]> {
  const { batches } = await readRecordBatches(iterate(messages));
  const out: RecordBatch[] = [];
  for await (const b of batches) out.push(b);
  return out;
}

describe("FlightData framing", () => {
  it("round-trips header, app metadata and a body laid from several buffers", () => {
    const header = new Uint8Array([1, 2, 3]);
    const body = [new Uint8Array(300).fill(7), new Uint8Array([9, 9])];
    const decoded = decodeFlightData(
      encodeFlightData({ header, body, appMetadata: new Uint8Array([5]) }),
    );
    expect([...decoded.header]).toEqual([1, 2, 3]);
    expect([...decoded.appMetadata]).toEqual([5]);
    expect(decoded.body.length).toBe(302);
    expect([...decoded.body.subarray(298)]).toEqual([7, 7, 9, 9]);
  });

  it("reads the descriptor of a DoPut's first message, and skips unknown fields", () => {
    const descriptor = FlightDescriptor.encode({
      type: FlightDescriptor_DescriptorType.CMD,
      cmd: Buffer.from('{"createDataset":{}}'),
      path: [],
    }).finish();
    const unknown = Buffer.from([0x28, 0x05]); // field 5, varint 5
    const msg = Buffer.concat([Buffer.from([0x0a, descriptor.length]), descriptor, unknown]);
    const decoded = decodeFlightData(msg);
    expect(decoded.descriptor?.type).toBe(FlightDescriptor_DescriptorType.CMD);
    expect(Buffer.from(decoded.descriptor!.cmd).toString()).toBe('{"createDataset":{}}');
  });

  it("refuses a truncated message", () => {
    expect(() => decodeFlightData(Buffer.from([0x12, 0x05, 1, 2]))).toThrow(/truncated/);
  });
});

describe("Arrow IPC over FlightData", () => {
  it("decodes batches (a dictionary column included) and encodes them back", async () => {
    const table = tableFromArrays({
      q: ["a", "b", null],
      n: new Float64Array([1.5, 2, NaN]),
    });
    const got = await batchesOf(flightDataOf(tableToIPC(table, "stream")));
    expect(got.map((b) => b.numRows)).toEqual([3]);
    expect(got[0]!.getChild("q")!.toArray()).toEqual(["a", "b", null]);
    // And our own encoding (a download's: no dictionaries) reads back the same.
    const plainBatch = new Table({
      q: vectorFromArray(["a", "b", null], new Utf8()),
      n: vectorFromArray([1, 2, 3], new Int32()),
    }).batches[0]!;
    const frames = [schemaFrame(plainBatch.schema), recordBatchFrame(plainBatch)].map((f) =>
      decodeFlightData(encodeFlightData(f)),
    );
    const again = await batchesOf(frames);
    expect(again[0]!.getChild("n")!.toArray()).toEqual(new Int32Array([1, 2, 3]));
    expect(again[0]!.getChild("q")!.toArray()).toEqual(["a", "b", null]);
  });

  it("a schema header whose field count runs past it is INVALID_ARGUMENT before it is decoded", async () => {
    const messages = flightDataOf(tableToIPC(tableFromArrays({ q: ["a"] }), "stream"));
    // A copy with a buffer of its own (the decoded header may be a Buffer view of the frame).
    const header = new Uint8Array(messages[0]!.header);
    const view = new DataView(header.buffer);
    // Message (the root table) → its header, the Schema table → its `fields` vector (slot 6).
    const field = (table: number, slot: number) =>
      table + view.getUint16(table - view.getInt32(table, true) + slot, true);
    const message = view.getUint32(0, true);
    const schemaRef = field(message, 8);
    const fieldsRef = field(schemaRef + view.getUint32(schemaRef, true), 6);
    const fieldsAt = fieldsRef + view.getUint32(fieldsRef, true);
    expect(view.getUint32(fieldsAt, true)).toBe(1);
    // 2^31 - 1 fields: apache-arrow alone would loop that many times on the event loop.
    view.setUint32(fieldsAt, 0x7fffffff, true);
    const err = await batchesOf([{ ...messages[0]!, header }, ...messages.slice(1)]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).message).toBe(
      "not Arrow IPC: a message header points outside itself",
    );
  });

  it("anything else is INVALID_ARGUMENT", async () => {
    const err = await batchesOf([
      {
        header: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]),
        body: new Uint8Array(),
        appMetadata: new Uint8Array(),
      },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe("invalid-request");
  });
});

describe("upload columns", () => {
  const table = new Table({
    question: vectorFromArray(['a"b', null, "c"], new Utf8()),
    metadata: vectorFromArray(['{"k": 1}', "not json", null], new Utf8()),
    n: vectorFromArray([1, 2, 3], new Int32()),
    extra: vectorFromArray(
      [{ a: 1 }, null, { a: 3 }],
      new Struct([new Field("a", new Int32(), true)]),
    ),
    id: vectorFromArray(["x", "y", "z"], new Utf8()),
  });
  const batch = table.batches[0]!;

  it("rows as the REST API would have received them: JSON text columns as objects, no nulls", () => {
    const columns = uploadColumns(table.schema, { skip: new Set(["id"]) });
    expect(columns.map((c) => [c.name, c.kinds])).toEqual([
      ["question", ColumnKind.COLUMN_KIND_STRING],
      ["metadata", ColumnKind.COLUMN_KIND_STRING | ColumnKind.COLUMN_KIND_JSON],
      ["n", ColumnKind.COLUMN_KIND_INTEGER],
      ["extra", ColumnKind.COLUMN_KIND_JSON],
    ]);
    expect(rowsJson(batch, columns, 0, 3, 0).map((r) => JSON.parse(r))).toEqual([
      { question: 'a"b', metadata: { k: 1 }, n: 1, extra: { a: 1 } },
      { metadata: "not json", n: 2 },
      { question: "c", n: 3, extra: { a: 3 } },
    ]);
    // A column the SDK reads back as text keeps its text.
    const kept = uploadColumns(table.schema, {
      skip: new Set(["id"]),
      keepText: new Set(["metadata"]),
    });
    expect(JSON.parse(rowsJson(batch, kept, 0, 1, 0)[0]!).metadata).toBe('{"k": 1}');
  });

  it("refuses a type a dataset cannot hold, naming the column; and text the store cannot", () => {
    const binary = new Schema([new Field("blob", new Binary(), true)]);
    expect(() => uploadColumns(binary, { skip: new Set() })).toThrow(
      /column "blob" has Arrow type Binary/,
    );
    const nul = new Table({ q: vectorFromArray(["ok", "a\u0000b"], new Utf8()) });
    const columns = uploadColumns(nul.schema, { skip: new Set() });
    expect(() => rowsJson(nul.batches[0]!, columns, 0, 2, 100)).toThrow(
      /column "q", row 101 contains U\+0000/,
    );
  });
});

describe("download columns", () => {
  const text = (values: (string | null)[]): TextColumn => {
    const bytes = values.map((v) => Buffer.from(v ?? ""));
    const offsets = new Int32Array(values.length + 1);
    bytes.forEach((b, i) => (offsets[i + 1] = offsets[i]! + b.length));
    const validity = new Uint8Array((values.length + 7) >> 3);
    values.forEach((v, i) => v !== null && (validity[i >> 3]! |= 1 << (i & 7)));
    return {
      offsets: Buffer.from(offsets.buffer),
      data: Buffer.concat(bytes),
      validity: Buffer.from(validity),
      nullCount: values.filter((v) => v === null).length,
      fixed: Buffer.alloc(0),
    };
  };

  /** IPC stream framing around a header and its body (continuation, padded length). */
  const ipcMessage = (header: Uint8Array, body: readonly Uint8Array[]) => {
    const prefix = Buffer.alloc(8 + ((header.length + 7) & ~7));
    prefix.writeInt32LE(-1, 0);
    prefix.writeInt32LE(prefix.length - 8, 4);
    prefix.set(header, 8);
    return Buffer.concat([prefix, ...body]);
  };

  /**
   * batchFrame's record batch, read back by apache-arrow; its FlightData must be byte-equal to
   * what apache-arrow's own writer (recordBatchFrame) makes of that batch.
   */
  const recordBatchOf = (schema: Schema, rows: number, columns: TextColumn[]): RecordBatch => {
    const frame = batchFrame(schema, rows, columns);
    const schemaMessage = schemaFrame(schema);
    const batch = tableFromIPC(
      Buffer.concat([
        ipcMessage(schemaMessage.header, []),
        ipcMessage(frame.header, frame.body),
        Buffer.alloc(8),
      ]),
    ).batches[0]!;
    expect(encodeFlightData(frame).equals(encodeFlightData(recordBatchFrame(batch)))).toBe(true);
    return batch;
  };

  it("one JSON type per column becomes that Arrow type; any mix stays text", () => {
    const schema = downloadSchema([
      { name: "s", kinds: ColumnKind.COLUMN_KIND_STRING },
      { name: "i", kinds: ColumnKind.COLUMN_KIND_INTEGER },
      { name: "f", kinds: ColumnKind.COLUMN_KIND_INTEGER | ColumnKind.COLUMN_KIND_FLOAT },
      { name: "b", kinds: ColumnKind.COLUMN_KIND_BOOL },
      { name: "j", kinds: ColumnKind.COLUMN_KIND_JSON | ColumnKind.COLUMN_KIND_STRING },
    ]);
    expect(schema.fields.map((f) => String(f.type))).toEqual([
      "Utf8",
      "Int64",
      "Float64",
      "Bool",
      "Utf8",
    ]);
    const batch = recordBatchOf(schema, 3, [
      text(["é", null, "c"]),
      text(["1", "-9007199254740993", null]),
      text(["1", "2.5", null]),
      text(["true", "false", null]),
      text(['{"a": 1}', "x", null]),
    ]);
    expect(batch.getChild("s")!.toArray()).toEqual(["é", null, "c"]);
    expect(batch.getChild("i")!.get(1)).toBe(-9007199254740993n);
    expect(batch.getChild("i")!.get(2)).toBeNull();
    expect(batch.getChild("f")!.get(1)).toBe(2.5);
    expect([batch.getChild("b")!.get(0), batch.getChild("b")!.get(1)]).toEqual([true, false]);
    expect(batch.getChild("j")!.get(0)).toBe('{"a": 1}');
  });

  it("text whose offsets do not start at 0 is rebased; a Bool column of nulls only is zeros", () => {
    const schema = downloadSchema([
      { name: "s", kinds: ColumnKind.COLUMN_KIND_STRING },
      { name: "b", kinds: ColumnKind.COLUMN_KIND_BOOL },
    ]);
    const shifted = text(["xy", "abc", null]);
    const offsets = new Int32Array(shifted.offsets.buffer.slice(0)).map((o) => o + 2);
    const batch = recordBatchOf(schema, 3, [
      { ...shifted, offsets: Buffer.from(offsets.buffer), data: Buffer.from("..xyabc") },
      text([null, null, null]),
    ]);
    expect(batch.getChild("s")!.toArray()).toEqual(["xy", "abc", null]);
    expect(batch.getChild("b")!.toArray()).toEqual([null, null, null]);
  });

  /** A fixed-width column (TextColumn.fixed), `shift` bytes past an 8-byte boundary. */
  const fixed = (bytes: Buffer, validity: number[] = [], shift = 0): TextColumn => ({
    offsets: Buffer.alloc(0),
    data: Buffer.alloc(0),
    validity: Buffer.from(validity),
    nullCount:
      validity.length === 0
        ? 0
        : bytes.length / 8 - validity.reduce((n, b) => n + b.toString(2).split("1").length - 1, 0),
    fixed: Buffer.concat([Buffer.alloc(shift), bytes]).subarray(shift),
  });
  const le = (values: readonly (bigint | number)[]) => {
    const b = Buffer.alloc(8 * values.length);
    values.forEach((v, i) =>
      typeof v === "bigint" ? b.writeBigInt64LE(v, 8 * i) : b.writeDoubleLE(v, 8 * i),
    );
    return b;
  };
  const numeric = downloadSchema([
    { name: "i", kinds: ColumnKind.COLUMN_KIND_INTEGER },
    { name: "f", kinds: ColumnKind.COLUMN_KIND_FLOAT },
  ]);

  it("fixed-width Int64 and Float64 values are taken as they are, aligned or not, nulls by their bits", () => {
    for (const shift of [0, 3]) {
      const batch = recordBatchOf(numeric, 3, [
        fixed(le([1_796_000_000_123_456_789n, 0n, -9_223_372_036_854_775_808n]), [0b101], shift),
        fixed(le([0.1, -2.5e-300, 123456.789]), [], shift),
      ]);
      expect([...batch.getChild("i")!]).toEqual([1_796_000_000_123_456_789n, null, -(2n ** 63n)]);
      expect([...batch.getChild("f")!]).toEqual([0.1, -2.5e-300, 123456.789]);
      expect(batch.getChild("i")!.nullCount).toBe(1);
    }
  });

  it("a fixed-width column of no rows; of another length than 8 bytes a row; of a text type", () => {
    expect(recordBatchOf(numeric, 0, [fixed(le([])), fixed(le([]))]).numRows).toBe(0);
    expect(() => recordBatchOf(numeric, 2, [fixed(le([1n, 2n])), fixed(le([1]))])).toThrow(
      /8 bytes for 2 values/,
    );
    const strings = downloadSchema([{ name: "s", kinds: ColumnKind.COLUMN_KIND_STRING }]);
    expect(() => recordBatchOf(strings, 1, [fixed(le([1n]))])).toThrow(/fixed-width column/);
  });
});

describe("single port", () => {
  it("tells the HTTP/2 preface from HTTP/1.1 by the first bytes", () => {
    expect(protocolOf(Buffer.from("GET / HTTP/1.1\r\n"))).toBe("http1");
    expect(protocolOf(Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))).toBe("http2");
    expect(protocolOf(Buffer.from("PRI * HT"))).toBe("undecided");
    expect(protocolOf(Buffer.from("PRX"))).toBe("http1");
  });
});
