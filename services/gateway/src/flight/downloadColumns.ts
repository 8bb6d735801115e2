import type { DataType } from "apache-arrow";
import { Bool, Field, Float64, Int64, Message, Schema, Utf8 } from "apache-arrow";
import * as ipcMetadata from "apache-arrow/ipc/metadata/message";
import { ColumnKind, type Column, type TextColumn } from "@argus/proto/dataset/v1/bulk";
import type { IpcFrame } from "./ipc.ts";

/**
 * A download's columns, as the dataset service sends them (text in Arrow Utf8 layout, with the
 * kinds of JSON values each holds) → Arrow columns. A column of one JSON type gets that type
 * (strings Utf8, booleans Bool, integers Int64, numbers Float64); any other mix, objects and
 * arrays among them, stays text: JSON text for an object or an array, as the SDK's JSON columns
 * expect (public-v2-flight.md §4c), and a string as itself.
 */

const { COLUMN_KIND_BOOL, COLUMN_KIND_INTEGER, COLUMN_KIND_FLOAT } = ColumnKind;

function arrowTypeOf(kinds: number): DataType {
  if (kinds === COLUMN_KIND_BOOL) return new Bool();
  if (kinds === COLUMN_KIND_INTEGER) return new Int64();
  if (kinds === COLUMN_KIND_FLOAT || kinds === (COLUMN_KIND_INTEGER | COLUMN_KIND_FLOAT))
    return new Float64();
  return new Utf8();
}

export function downloadSchema(columns: readonly Column[]): Schema {
  return new Schema(columns.map((c) => new Field(c.name, arrowTypeOf(c.kinds), true)));
}

const EMPTY = new Uint8Array(0);

function int32s(bytes: Uint8Array, count: number): Int32Array {
  if (bytes.byteLength !== count * 4)
    throw new Error(`a text column has ${bytes.byteLength} bytes of offsets for ${count} entries`);
  // A view when aligned (the usual case), a copy when not.
  return bytes.byteOffset % 4 === 0
    ? new Int32Array(bytes.buffer, bytes.byteOffset, count)
    : new Int32Array(new Uint8Array(bytes).buffer);
}

const present = (validity: Uint8Array, i: number): boolean =>
  validity.length === 0 || (validity[i >> 3]! & (1 << (i & 7))) !== 0;

/** Each present value's text, parsed (numbers and booleans are ASCII). */
function parsed<T>(column: TextColumn, rows: number, parse: (text: string) => T, missing: T): T[] {
  const offsets = int32s(column.offsets, rows + 1);
  const data = Buffer.from(column.data.buffer, column.data.byteOffset, column.data.byteLength);
  const out: T[] = new Array(rows);
  for (let i = 0; i < rows; i++)
    out[i] = present(column.validity, i)
      ? parse(data.toString("latin1", offsets[i], offsets[i + 1]))
      : missing;
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const TWO_16 = 65_536;
const TWO_32 = 4_294_967_296;

/**
 * Each present value's decimal text as an int64. Times in nanoseconds and counts are most of
 * what a download's integer columns hold: up to 19 digits below 9e18 are put together from
 * their bytes as two 32-bit words (doubles stay exact: no partial result reaches 2^53), with no
 * string or BigInt made per value; anything else (a sign, more digits) goes through BigInt.
 */
export function int64s(column: TextColumn, rows: number): BigInt64Array {
  const offsets = int32s(column.offsets, rows + 1);
  const d = column.data;
  const out = new BigInt64Array(rows);
  const words = new Uint32Array(out.buffer);
  const slow = (i: number) => {
    out[i] = BigInt(
      Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString(
        "latin1",
        offsets[i],
        offsets[i + 1],
      ),
    );
  };
  for (let i = 0; i < rows; i++) {
    if (!present(column.validity, i)) continue;
    const start = offsets[i]!;
    const end = offsets[i + 1]!;
    const len = end - start;
    if (!LITTLE_ENDIAN || len === 0 || len > 19 || (len === 19 && d[start]! > 0x38)) {
      slow(i);
      continue;
    }
    // value = a * 1e9 + b: b the last 9 digits, a the rest (below 9.3e9 < 2^34).
    let a = 0;
    let b = 0;
    let digits = true;
    const split = end - 9;
    for (let j = start; j < end; j++) {
      const c = d[j]! - 0x30;
      if (c < 0 || c > 9) {
        digits = false;
        break;
      }
      if (j < split) a = a * 10 + c;
      else b = b * 10 + c;
    }
    if (!digits) {
      slow(i);
      continue;
    }
    const aHigh = Math.floor(a / TWO_16);
    const x = aHigh * 1e9; // < 2^48
    const y = (a - aHigh * TWO_16) * 1e9 + b; // < 2^47
    let lo = (x % TWO_16) * TWO_16 + (y % TWO_32);
    const hi = Math.floor(x / TWO_16) + Math.floor(y / TWO_32) + Math.floor(lo / TWO_32);
    lo %= TWO_32;
    words[2 * i] = lo;
    words[2 * i + 1] = hi;
  }
  return out;
}

const bytesOf = (values: BigInt64Array | Float64Array | Int32Array): Uint8Array =>
  new Uint8Array(values.buffer, values.byteOffset, values.byteLength);

/** A little-endian int32 at `at`, whatever the alignment of `bytes`. */
const int32At = (bytes: Uint8Array, at: number): number =>
  bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);

/**
 * One column's buffers in the order and shape apache-arrow's IPC writer (VectorAssembler) gives
 * them: the validity bitmap (empty when no value is null), then a Utf8 column's offsets (from 0)
 * and its value bytes, or the values of an Int64, Float64 or Bool column. What arrives in Arrow's
 * layout already (text, fixed-width values) is a view of the message, never copied here.
 */
function columnBuffers(type: DataType, column: TextColumn, rows: number): Uint8Array[] {
  if (column.nullCount < 0) throw new Error(`a column counts ${column.nullCount} nulls`);
  if (column.nullCount > 0 && column.validity.length === 0)
    throw new Error(`a column counts ${column.nullCount} nulls and has no validity bitmap`);
  const validity = column.nullCount > 0 ? column.validity : EMPTY;
  // Values already in Arrow's layout: only an Int64 or a Float64 column is sent so.
  if (column.offsets.length === 0) {
    if (!(type instanceof Int64 || type instanceof Float64))
      throw new Error(`a fixed-width column for an Arrow ${String(type)} column`);
    if (column.fixed.byteLength !== rows * 8)
      throw new Error(
        `a fixed-width column has ${column.fixed.byteLength} bytes for ${rows} values`,
      );
    return [validity, column.fixed];
  }
  if (type instanceof Int64) return [validity, bytesOf(int64s(column, rows))];
  if (type instanceof Float64)
    return [validity, bytesOf(Float64Array.from(parsed(column, rows, Number, 0)))];
  if (type instanceof Bool) {
    const bits = new Uint8Array((rows + 7) >> 3);
    // A column of nulls only is all zeros, as Arrow's writer has it.
    if (column.nullCount < rows)
      parsed(column, rows, (t) => t === "true", false).forEach((v, i) => {
        if (v) bits[i >> 3]! |= 1 << (i & 7);
      });
    return [validity, bits];
  }
  if (column.offsets.byteLength !== (rows + 1) * 4)
    throw new Error(
      `a text column has ${column.offsets.byteLength} bytes of offsets for ${rows + 1} entries`,
    );
  const begin = int32At(column.offsets, 0);
  const end = int32At(column.offsets, rows * 4);
  const data = column.data.subarray(
    begin,
    begin + Math.min(end - begin, column.data.length - begin),
  );
  if (begin === 0) return [validity, column.offsets, data];
  // Offsets that do not start at 0 (never sent): rebased, as Arrow's writer does.
  return [validity, bytesOf(int32s(column.offsets, rows + 1).map((o) => o - begin)), data];
}

const PADDING = new Uint8Array(8);
const padded = (n: number): number => (n + 7) & ~7;

/**
 * One batch of rows as the Arrow IPC RecordBatch message of `schema` (from `downloadSchema`),
 * byte for byte as apache-arrow writes the record batch of the same values (its header by
 * apache-arrow itself; its body the column buffers, each padded to 8 bytes), without building
 * Arrow vectors to take them apart again: the columns' bytes go from the service's message into
 * the FlightData once (encodeFlightData).
 */
export function batchFrame(schema: Schema, rows: number, columns: readonly TextColumn[]): IpcFrame {
  if (columns.length !== schema.fields.length)
    throw new Error(`a batch has ${columns.length} columns for ${schema.fields.length} fields`);
  const nodes: ipcMetadata.FieldNode[] = [];
  const regions: ipcMetadata.BufferRegion[] = [];
  const body: Uint8Array[] = [];
  let bodyLength = 0;
  schema.fields.forEach((field, i) => {
    const column = columns[i]!;
    nodes.push(new ipcMetadata.FieldNode(rows, column.nullCount));
    for (const b of columnBuffers(field.type, column, rows)) {
      const length = padded(b.byteLength);
      regions.push(new ipcMetadata.BufferRegion(bodyLength, length));
      bodyLength += length;
      if (b.byteLength === 0) continue;
      body.push(b);
      if (length > b.byteLength) body.push(PADDING.subarray(0, length - b.byteLength));
    }
  });
  const header = new ipcMetadata.RecordBatch(rows, nodes, regions, null, []);
  return { header: Message.encode(Message.from(header, bodyLength)), body };
}
