import { isAscii, isUtf8 } from "node:buffer";
import {
  type Data,
  DataType,
  MapRow,
  StructRow,
  Vector,
  type Field,
  type RecordBatch,
  type Schema,
} from "apache-arrow";
import { DomainError } from "@argus/platform";
import { ColumnKind } from "@argus/proto/dataset/v1/bulk";
import { unstorableReason } from "../http/storableText.ts";

/**
 * Arrow columns of an upload → the JSON of each row's fields, as the REST API would have
 * received them. The rules of the official SDK's uploads (public-v2-flight.md §4a): datetimes
 * arrive as epoch milliseconds and booleans as "True"/"False" (kept as they are); dicts in the
 * SDK's JSON columns arrive as JSON text and are stored as the objects they were; other nested
 * values arrive as Arrow structs and lists and are stored as JSON objects and arrays. A null
 * (and a float NaN, pandas' missing value) is no field at all, as a row of the SDK's records
 * would not have it.
 */

/** The SDK's columns whose dicts travel as JSON text (arize `_should_convert_json`). */
const JSON_TEXT_COLUMNS = new Set([
  "document.metadata",
  "llm.function_call",
  "llm.invocation_parameters",
  "llm.prompt_template.variables",
  "message.function_call_arguments_json",
  "metadata",
  "tool.parameters",
  "tool_call.function.arguments",
  "output",
  "result",
]);

const isJsonTextColumn = (name: string): boolean =>
  JSON_TEXT_COLUMNS.has(name) || (name.startsWith("eval.") && name.endsWith(".metadata"));

/**
 * A row's value of one column as JSON text; undefined for no value. `row` is the batch's,
 * `base` the upload's row number of the batch's first row (for messages).
 */
type ValueJson = (vector: Vector, row: number, base: number) => string | undefined;

export interface UploadColumn {
  name: string;
  /** ColumnKind bits of the JSON values this column can produce. */
  kinds: number;
  json: ValueJson;
  /**
   * A plain Utf8 column: its value is the JSON string of its text, which `rowsJson` writes
   * straight from the Arrow bytes when they allow (`textBytes`), as `json` would have.
   */
  plainUtf8?: boolean;
}

const { COLUMN_KIND_STRING, COLUMN_KIND_BOOL, COLUMN_KIND_INTEGER, COLUMN_KIND_FLOAT } = ColumnKind;
const COLUMN_KIND_JSON = ColumnKind.COLUMN_KIND_JSON;

const refuse = (message: string) => new DomainError("invalid-request", message);

function storable(text: string, where: () => string): string {
  const reason = unstorableReason(text);
  if (reason) throw refuse(`${where()} ${reason}, which cannot be stored`);
  return text;
}

/** JSON text of a nested value as apache-arrow reads it (struct rows, lists, maps, bigints). */
function nestedJson(value: unknown, where: () => string): string {
  return JSON.stringify(plain(value, where));
}

function plain(value: unknown, where: () => string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") {
    // Exact in JSON only as long as a double holds it; larger ones keep their digits as text.
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") return storable(value, where);
  if (typeof value === "boolean") return value;
  if (value instanceof Date) return value.getTime();
  if (ArrayBuffer.isView(value))
    return Array.from(value as unknown as ArrayLike<unknown>, (v) => plain(v, where));
  // A list's value is a Vector; a struct's a StructRow; a map's a MapRow (entries by key).
  if (value instanceof Vector) return Array.from(value, (x) => plain(x, where));
  if (value instanceof StructRow || value instanceof MapRow) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value.toJSON()))
      out[storable(String(k), where)] = plain(x, where);
    return out;
  }
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) out[storable(k, where)] = plain(x, where);
    return out;
  }
  return null;
}

/** The JSON text an SDK JSON column's string stands for, when it is an object or an array. */
function jsonTextValue(text: string): string {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return JSON.stringify(text);
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return JSON.stringify(text);
  }
}

function columnOf(
  field: Field,
  where: (row: number) => string,
  keepText: ReadonlySet<string>,
): UploadColumn {
  const name = field.name;
  const at = (row: number, base: number) => () => where(base + row);
  let type: DataType = field.type;
  if (DataType.isDictionary(type)) type = type.dictionary;
  const column = (kinds: number, json: ValueJson): UploadColumn => ({ name, kinds, json });
  const dictionary = DataType.isDictionary(field.type);

  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type) || DataType.isUtf8View(type)) {
    if (isJsonTextColumn(name) && !keepText.has(name))
      return column(COLUMN_KIND_STRING | COLUMN_KIND_JSON, (v, i, base) => {
        const s = v.get(i) as string | null;
        return s === null ? undefined : jsonTextValue(storable(s, at(i, base)));
      });
    return {
      ...column(COLUMN_KIND_STRING, (v, i, base) => {
        const s = v.get(i) as string | null;
        return s === null ? undefined : JSON.stringify(storable(s, at(i, base)));
      }),
      plainUtf8: DataType.isUtf8(type) && !dictionary,
    };
  }
  if (DataType.isBool(type))
    return column(COLUMN_KIND_BOOL, (v, i) => {
      const b = v.get(i) as boolean | null;
      return b === null ? undefined : b ? "true" : "false";
    });
  if (DataType.isInt(type))
    return column(COLUMN_KIND_INTEGER, (v, i) => {
      const n = v.get(i) as number | bigint | null;
      return n === null ? undefined : String(n);
    });
  if (DataType.isFloat(type))
    return column(COLUMN_KIND_FLOAT, (v, i) => {
      const n = v.get(i) as number | null;
      return n === null || !Number.isFinite(n) ? undefined : String(n);
    });
  if (DataType.isTimestamp(type) || DataType.isDate(type))
    // Epoch milliseconds, as the SDK sends datetimes itself.
    return column(COLUMN_KIND_INTEGER, (v, i) => {
      const t = v.get(i) as number | Date | null;
      if (t === null) return undefined;
      return String(Math.trunc(t instanceof Date ? t.getTime() : Number(t)));
    });
  if (DataType.isNull(type)) return column(ColumnKind.COLUMN_KIND_UNSPECIFIED, () => undefined);
  if (
    DataType.isStruct(type) ||
    DataType.isList(type) ||
    DataType.isFixedSizeList(type) ||
    DataType.isMap(type) ||
    DataType.isLargeList(type)
  )
    return column(COLUMN_KIND_JSON, (v, i, base) => {
      const value = v.get(i) as unknown;
      return value === null || value === undefined ? undefined : nestedJson(value, at(i, base));
    });
  throw refuse(
    `column ${JSON.stringify(name)} has Arrow type ${String(field.type)}, which a dataset cannot hold: send text, numbers, booleans, timestamps, structs or lists`,
  );
}

export interface UploadColumnOptions {
  /** Columns the wire contract gives another meaning: not fields. */
  skip: ReadonlySet<string>;
  /** JSON text columns whose text the SDK keeps as text when it reads them back. */
  keepText?: ReadonlySet<string>;
}

/**
 * How each column of `schema` is written, in schema order. An unsupported type is refused
 * before any row is read.
 */
export function uploadColumns(schema: Schema, opts: UploadColumnOptions): UploadColumn[] {
  const { skip, keepText = new Set<string>() } = opts;
  const seen = new Set<string>();
  const columns: UploadColumn[] = [];
  for (const field of schema.fields) {
    if (skip.has(field.name)) continue;
    storable(field.name, () => "a column name");
    if (seen.has(field.name))
      throw refuse(`column ${JSON.stringify(field.name)} appears twice in the schema`);
    seen.add(field.name);
    columns.push(
      columnOf(field, (row) => `column ${JSON.stringify(field.name)}, row ${row}`, keepText),
    );
  }
  return columns;
}

/**
 * The JSON escape of each byte below 0x80 that JSON.stringify escapes (the quote, the
 * backslash, the controls), as bytes; undefined for a byte written as it is. A byte from 0x80
 * up is part of a UTF-8 sequence, which JSON.stringify keeps (U+2028 and U+2029 included).
 */
const ESCAPES: (Uint8Array | undefined)[] = Array.from({ length: 0x80 }, (_, b) =>
  b < 0x20 || b === 0x22 || b === 0x5c
    ? Buffer.from(JSON.stringify(String.fromCharCode(b)).slice(1, -1), "latin1")
    : undefined,
);

/** The bytes of a slice of a plain Utf8 column, and what writing them needs. */
interface TextSlice {
  data: Data;
  offsets: Int32Array;
  /** The column's bytes as a Buffer (no copy), for copying values out natively. */
  bytes: Buffer;
  /** No byte of the slice needs a JSON escape: each value is copied as it is. */
  verbatim: boolean;
  ascii: boolean;
}

const escapes = (b: number) => b < 0x20 || b === 0x22 || b === 0x5c;

/**
 * Whether a byte in [start, end) is one JSON.stringify escapes. Four bytes at a time where
 * aligned (a byte below 0x20, or equal to `"` or `\`, makes its lane's high bit show through
 * the borrow of a subtraction; a lane from 0x80 up never does): a regex over the bytes' latin1
 * text took three times as long, a plain loop twice.
 */
function needsEscape(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  for (; i < end && ((bytes.byteOffset + i) & 3) !== 0; i++) if (escapes(bytes[i]!)) return true;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (end - i) >> 2);
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    const quote = x ^ 0x22222222;
    const backslash = x ^ 0x5c5c5c5c;
    if (
      ((x - 0x20202020) & ~x & 0x80808080) |
      ((quote - 0x01010101) & ~quote & 0x80808080) |
      ((backslash - 0x01010101) & ~backslash & 0x80808080)
    )
      return true;
  }
  for (i += words.length * 4; i < end; i++) if (escapes(bytes[i]!)) return true;
  return false;
}

/**
 * The bytes of rows [from, to) of a plain Utf8 column, when they can be copied into JSON as
 * they are (escaped): one chunk, UTF-8 throughout (so decoding them, as `Vector.get` does,
 * changes nothing and no lone surrogate can be among them) and no U+0000 (which `storable`
 * refuses). Otherwise null, and the column is read value by value, errors and all.
 */
function textSlice(vector: Vector, from: number, to: number): TextSlice | null {
  if (vector.data.length !== 1) return null;
  const data = vector.data[0]! as Data;
  const offsets = data.valueOffsets as Int32Array | undefined;
  const values = data.values as Uint8Array | undefined;
  if (!offsets || !values) return null;
  const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const start = offsets[from]!;
  const end = offsets[to]!;
  const slice = bytes.subarray(start, end);
  if (!isUtf8(slice) || slice.indexOf(0) >= 0) return null;
  const ascii = isAscii(slice);
  const verbatim = !needsEscape(bytes, start, end);
  return { data, offsets, bytes, verbatim, ascii };
}

/** The buffer each row is written in before it is read out, grown for a larger row. */
const SCRATCH_BYTES = 1 << 20;
let scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

function room(at: number, bytes: number): void {
  if (at + bytes <= scratch.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, at + bytes));
  scratch.copy(bigger, 0, 0, at);
  scratch = bigger;
}

/**
 * `{"name":value,…}` for rows [from, to) of `batch`: only the columns with a value. The rows
 * are written as UTF-8 into one buffer, each then read out as a string: plain Utf8 columns
 * straight from their Arrow bytes (escaped as JSON.stringify does), the others through their
 * `json`. Names are JSON-quoted once per batch.
 */
export function rowsJson(
  batch: RecordBatch,
  columns: readonly UploadColumn[],
  from: number,
  to: number,
  base: number,
): string[] {
  const vectors = columns.map((c) => batch.getChild(c.name)!);
  const keys = columns.map((c) => Buffer.from(`${JSON.stringify(c.name)}:`));
  const keysAscii = keys.map((k) => k.every((b) => b < 0x80));
  const direct = columns.map((c, k) => (c.plainUtf8 ? textSlice(vectors[k]!, from, to) : null));
  const rows: string[] = new Array(to - from);
  for (let row = from; row < to; row++) {
    let at = 0;
    let ascii = true;
    for (let c = 0; c < columns.length; c++) {
      const text = direct[c];
      let value: string | undefined;
      if (text) {
        if (text.data.nullCount > 0 && !text.data.getValid(row)) continue;
      } else {
        value = columns[c]!.json(vectors[c]!, row, base);
        if (value === undefined) continue;
      }
      const key = keys[c]!;
      room(at, key.length + 1);
      // `{` before the first field, `,` between.
      scratch[at] = at === 0 ? 0x7b : 0x2c;
      at++;
      scratch.set(key, at);
      at += key.length;
      ascii &&= keysAscii[c]!;
      if (value !== undefined) {
        room(at, value.length * 3);
        const n = scratch.write(value, at);
        ascii &&= n === value.length;
        at += n;
        continue;
      }
      const { bytes, offsets } = text!;
      const end = offsets[row + 1]!;
      let i = offsets[row]!;
      ascii &&= text!.ascii;
      // A byte escapes to at most 6 (\u00XX), and the quotes.
      room(at, (end - i) * 6 + 2);
      const out = scratch;
      out[at++] = 0x22;
      if (text!.verbatim) {
        // `set` of a view: less than half the cost of `Buffer#copy` for values of ~100 bytes.
        out.set(bytes.subarray(i, end), at);
        at += end - i;
        i = end;
      }
      for (; i < end; i++) {
        const b = bytes[i]!;
        if (b >= 0x80) {
          out[at++] = b;
          continue;
        }
        const escape = ESCAPES[b];
        if (escape === undefined) {
          out[at++] = b;
          continue;
        }
        out.set(escape, at);
        at += escape.length;
      }
      out[at++] = 0x22;
    }
    if (at === 0) {
      rows[row - from] = "{}";
      continue;
    }
    room(at, 1);
    scratch[at++] = 0x7d;
    rows[row - from] = scratch.toString(ascii ? "latin1" : "utf8", 0, at);
  }
  // One huge row does not keep its buffer for good.
  if (scratch.length > SCRATCH_BYTES) scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  return rows;
}
