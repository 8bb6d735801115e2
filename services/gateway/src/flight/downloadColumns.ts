import type { DataType } from "apache-arrow";
import {
  Bool,
  Field,
  Float64,
  Int64,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  makeData,
  type Data,
} from "apache-arrow";
import { ColumnKind, type Column, type TextColumn } from "@argus/proto/dataset/v1/bulk";

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

function textData(column: TextColumn, rows: number): Data<Utf8> {
  return makeData({
    type: new Utf8(),
    length: rows,
    nullCount: column.nullCount,
    nullBitmap: column.validity.length > 0 ? column.validity : null,
    valueOffsets: int32s(column.offsets, rows + 1),
    data: column.data.length > 0 ? column.data : EMPTY,
  });
}

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

/**
 * A fixed-width column's values (TextColumn.fixed) as the typed array Arrow wraps: a view when
 * aligned (the usual case), a copy when not.
 */
function fixedValues<T extends BigInt64Array | Float64Array>(
  of: { new (b: ArrayBufferLike, offset: number, length: number): T; new (length: number): T },
  column: TextColumn,
  rows: number,
): T {
  const bytes = column.fixed;
  if (bytes.byteLength !== rows * 8)
    throw new Error(`a fixed-width column has ${bytes.byteLength} bytes for ${rows} values`);
  if (bytes.byteOffset % 8 === 0) return new of(bytes.buffer, bytes.byteOffset, rows);
  const copy = new of(rows);
  new Uint8Array(copy.buffer).set(bytes);
  return copy;
}

function typedData(type: DataType, column: TextColumn, rows: number): Data {
  const nullBitmap = column.validity.length > 0 ? column.validity : null;
  const base = { length: rows, nullCount: column.nullCount, nullBitmap };
  // Values already in Arrow's layout: only an Int64 or a Float64 column is sent so.
  if (column.offsets.length === 0) {
    if (type instanceof Int64)
      return makeData({ ...base, type, data: fixedValues(BigInt64Array, column, rows) });
    if (type instanceof Float64)
      return makeData({ ...base, type, data: fixedValues(Float64Array, column, rows) });
    throw new Error(`a fixed-width column for an Arrow ${String(type)} column`);
  }
  if (type instanceof Int64)
    return makeData({
      ...base,
      type,
      data: int64s(column, rows),
    });
  if (type instanceof Float64)
    return makeData({
      ...base,
      type,
      data: Float64Array.from(parsed(column, rows, Number, 0)),
    });
  if (type instanceof Bool) {
    const values = parsed(column, rows, (t) => t === "true", false);
    const bits = new Uint8Array((rows + 7) >> 3);
    values.forEach((v, i) => {
      if (v) bits[i >> 3]! |= 1 << (i & 7);
    });
    return makeData({ ...base, type, data: bits });
  }
  return textData(column, rows);
}

/** One batch of rows as an Arrow record batch of `schema` (from `downloadSchema`). */
export function recordBatchOf(
  schema: Schema,
  rows: number,
  columns: readonly TextColumn[],
): RecordBatch {
  if (columns.length !== schema.fields.length)
    throw new Error(`a batch has ${columns.length} columns for ${schema.fields.length} fields`);
  const children = schema.fields.map((f, i) => typedData(f.type, columns[i]!, rows));
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: rows, nullCount: 0, children }),
  );
}
