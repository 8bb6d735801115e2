import {
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

  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type) || DataType.isUtf8View(type)) {
    if (isJsonTextColumn(name) && !keepText.has(name))
      return column(COLUMN_KIND_STRING | COLUMN_KIND_JSON, (v, i, base) => {
        const s = v.get(i) as string | null;
        return s === null ? undefined : jsonTextValue(storable(s, at(i, base)));
      });
    return column(COLUMN_KIND_STRING, (v, i, base) => {
      const s = v.get(i) as string | null;
      return s === null ? undefined : JSON.stringify(storable(s, at(i, base)));
    });
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
 * `{"name":value,…}` for rows [from, to) of `batch`: only the columns with a value. Names are
 * JSON-quoted once per batch, values written straight from the Arrow vectors.
 */
export function rowsJson(
  batch: RecordBatch,
  columns: readonly UploadColumn[],
  from: number,
  to: number,
  base: number,
): string[] {
  const vectors = columns.map((c) => batch.getChild(c.name)!);
  const keys = columns.map((c) => `${JSON.stringify(c.name)}:`);
  const rows: string[] = new Array(to - from);
  for (let row = from; row < to; row++) {
    let text = "";
    for (let c = 0; c < columns.length; c++) {
      const value = columns[c]!.json(vectors[c]!, row, base);
      if (value === undefined) continue;
      text += text === "" ? `{${keys[c]}${value}` : `,${keys[c]}${value}`;
    }
    rows[row - from] = text === "" ? "{}" : `${text}}`;
  }
  return rows;
}
