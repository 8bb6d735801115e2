import { DataType, type Field, type RecordBatch, type Schema, type Vector } from "apache-arrow";
import { DomainError } from "@argus/platform";
import {
  TracingServiceService,
  type SpanAnnotationValue,
  type SpanEvaluation,
  type SpanMetadataPatch,
  type WriteSpanUpdatesResponse,
} from "@argus/proto/tracing/v1/tracing";
import {
  WriteSpanAnnotationResponse,
  WriteSpanAttributesMetadataResponse,
  WriteSpanEvaluationResponse,
  type WriteSpanAnnotationRequest,
  type WriteSpanAttributesMetadataRequest,
  type WriteSpanEvaluationRequest,
} from "@argus/proto/public/flight";
import type { BulkBackend } from "./bulk.ts";
import type { FlightCaller } from "./call.ts";
import { idOf, invalid, required } from "./requests.ts";
import type { FlightUpload } from "./service.ts";

/**
 * The span updates of the official SDK (public-v2-flight.md rows 6–7): `context.span_id` and,
 * per evaluation or annotation name, `<prefix>.<name>.<field>` columns. Each row's values of a
 * name become one update of that span; a row without any value of a name updates nothing for
 * it. The whole upload is read before anything is written, so a failed stream writes nothing.
 */

export const SPAN_ID_COLUMN = "context.span_id";

/** What a value column holds, as the SDK sends it. */
type ValueKind = "text" | "number";

/** One `<prefix>.<name>.<field>` column the update reads. */
interface ValueColumn {
  column: string;
  name: string;
  field: string;
  kind: ValueKind;
}

export interface SpanUpdateLayout {
  idColumn: string;
  /** Value columns, grouped by name in the order names first appear. */
  names: { name: string; columns: ValueColumn[] }[];
}

/** One update of one span: a name's values of one row. */
export interface SpanUpdate {
  spanId: string;
  name: string;
  values: Record<string, string | number>;
}

interface UpdateKind {
  /** The columns' prefix, e.g. `eval`. */
  prefix: string;
  /** The value fields and what they hold. */
  fields: Record<string, ValueKind>;
  /** Fields the SDK sends that Argus does not store (kept as the REST path keeps them). */
  ignoredFields: Record<string, ValueKind | "any">;
  /** Whole columns the SDK may send that are not stored. */
  ignoredColumns: ReadonlySet<string>;
  /** How the columns are spelled, for messages. */
  spelling: string;
}

export const EVALUATIONS: UpdateKind = {
  prefix: "eval",
  fields: { label: "text", score: "number", explanation: "text" },
  ignoredFields: {},
  ignoredColumns: new Set(),
  spelling: "eval.<name>.label, .score or .explanation",
};

/**
 * The annotator and the time of an annotation are the caller's and the server's, as with
 * REST's annotate: the SDK's `updated_by` ("SDK") and `updated_at` columns are accepted and not
 * stored, and neither are `annotation.notes` (Argus's span annotations have no notes).
 */
export const ANNOTATIONS: UpdateKind = {
  prefix: "annotation",
  fields: { label: "text", score: "number", text: "text" },
  ignoredFields: { updated_by: "text", updated_at: "any" },
  ignoredColumns: new Set(["annotation.notes"]),
  spelling: "annotation.<name>.label, .score, .text, .updated_by or .updated_at",
};

const isText = (t: DataType) =>
  DataType.isUtf8(t) || DataType.isLargeUtf8(t) || DataType.isUtf8View(t);

function typeOf(field: Field): DataType {
  const t = field.type;
  return DataType.isDictionary(t) ? t.dictionary : t;
}

function holds(kind: ValueKind | "any", t: DataType): boolean {
  if (DataType.isNull(t) || kind === "any") return true;
  return kind === "text" ? isText(t) : DataType.isFloat(t) || DataType.isInt(t);
}

const KIND_TEXT: Record<ValueKind, string> = { text: "text", number: "numbers" };

/**
 * How an upload's columns are read, checked before any row is: the span id column must be
 * there and hold text; every other column must be one of the kind's, of its type.
 */
function checkIdColumn(schema: Schema, idColumn: string): void {
  const id = schema.fields.find((f) => f.name === idColumn);
  if (!id) throw invalid(`the upload has no ${JSON.stringify(idColumn)} column (the span ids)`);
  if (!isText(typeOf(id)))
    throw invalid(
      `column ${JSON.stringify(idColumn)} must hold span ids as text, not ${String(id.type)}`,
    );
}

export function spanUpdateLayout(
  schema: Schema,
  kind: UpdateKind,
  idColumn = SPAN_ID_COLUMN,
): SpanUpdateLayout {
  checkIdColumn(schema, idColumn);
  const names = new Map<string, ValueColumn[]>();
  const seen = new Set<string>();
  const pattern = new RegExp(`^${kind.prefix}\\.(.+)\\.([a-z_]+)$`);
  for (const field of schema.fields) {
    if (field.name === idColumn) continue;
    const column = JSON.stringify(field.name);
    if (seen.has(field.name)) throw invalid(`column ${column} appears twice in the schema`);
    seen.add(field.name);
    if (kind.ignoredColumns.has(field.name)) continue;
    const m = pattern.exec(field.name);
    const [name, suffix] = m ? [m[1]!, m[2]!] : ["", ""];
    const valueKind = kind.fields[suffix];
    const ignored = kind.ignoredFields[suffix];
    if (!m || name.trim() === "" || (valueKind === undefined && ignored === undefined))
      throw invalid(`column ${column} is not one of ${idColumn}, ${kind.spelling}`);
    const type = typeOf(field);
    if (!holds(valueKind ?? ignored!, type))
      throw invalid(
        `column ${column} has Arrow type ${String(field.type)}: it must hold ${KIND_TEXT[valueKind ?? (ignored as ValueKind)]}`,
      );
    if (valueKind === undefined) continue;
    const list = names.get(name) ?? [];
    list.push({ column: field.name, name, field: suffix, kind: valueKind });
    names.set(name, list);
  }
  if (names.size === 0)
    throw invalid(`the upload has no value columns: send ${kind.spelling} columns`);
  return { idColumn, names: [...names].map(([name, columns]) => ({ name, columns })) };
}

function valueAt(v: Vector, i: number, kind: ValueKind): string | number | undefined {
  const x = v.get(i) as string | number | bigint | null;
  if (x === null || x === undefined) return undefined;
  if (kind === "text") return String(x);
  const n = Number(x);
  // pandas' missing value.
  return Number.isFinite(n) ? n : undefined;
}

/** The updates of rows of one batch; `base` is the upload's number of its first row. */
export function updatesOfBatch(
  batch: RecordBatch,
  layout: SpanUpdateLayout,
  base: number,
): SpanUpdate[] {
  const ids = batch.getChild(layout.idColumn)!;
  const vectors = layout.names.map((n) => ({
    name: n.name,
    columns: n.columns.map((c) => ({ ...c, vector: batch.getChild(c.column)! })),
  }));
  const out: SpanUpdate[] = [];
  for (let i = 0; i < batch.numRows; i++) {
    const spanId = ids.get(i) as string | null;
    if (spanId === null || spanId.trim() === "")
      throw invalid(`row ${base + i} has no span id in ${JSON.stringify(layout.idColumn)}`);
    for (const n of vectors) {
      const values: Record<string, string | number> = {};
      let any = false;
      for (const c of n.columns) {
        const value = valueAt(c.vector, i, c.kind);
        if (value === undefined) continue;
        values[c.field] = value;
        any = true;
      }
      if (any) out.push({ spanId, name: n.name, values });
    }
  }
  return out;
}

const PATCH_COLUMN = "patch_document";

/**
 * A metadata upload's columns (row 8): the span ids and `patch_document`, JSON text of an
 * object (the SDK's merge of its `attributes.metadata.*` columns and its patch column).
 */
export function metadataLayout(schema: Schema): SpanUpdateLayout {
  checkIdColumn(schema, SPAN_ID_COLUMN);
  for (const field of schema.fields) {
    if (field.name === SPAN_ID_COLUMN) continue;
    if (field.name !== PATCH_COLUMN)
      throw invalid(
        `column ${JSON.stringify(field.name)} is not one of ${SPAN_ID_COLUMN}, ${PATCH_COLUMN}`,
      );
    const type = typeOf(field);
    if (!isText(type) && !DataType.isNull(type))
      throw invalid(
        `column "${PATCH_COLUMN}" has Arrow type ${String(field.type)}: it must hold JSON text`,
      );
  }
  if (!schema.fields.some((f) => f.name === PATCH_COLUMN))
    throw invalid(`the upload has no "${PATCH_COLUMN}" column`);
  return {
    idColumn: SPAN_ID_COLUMN,
    names: [
      {
        name: PATCH_COLUMN,
        columns: [{ column: PATCH_COLUMN, name: PATCH_COLUMN, field: "patch", kind: "text" }],
      },
    ],
  };
}

/**
 * The bytes of updates one upload may carry: they go to the tracing service in one message
 * (one transaction), under its gRPC limit with room to spare.
 */
const MAX_UPDATE_BYTES = 16 * 1024 * 1024;

const sizeOf = (u: SpanUpdate): number => {
  let n = Buffer.byteLength(u.spanId) + Buffer.byteLength(u.name) + 16;
  for (const v of Object.values(u.values)) n += typeof v === "string" ? Buffer.byteLength(v) : 9;
  return n;
};

/**
 * Every update of the upload, or 413 once they exceed `maxBytes` (their UTF-8 bytes: a bound of
 * 3 bytes a character refused 100 000 evaluations of ordinary English explanations).
 */
export async function readUpdates(
  upload: FlightUpload,
  layout: SpanUpdateLayout,
  maxBytes = MAX_UPDATE_BYTES,
): Promise<SpanUpdate[]> {
  const updates: SpanUpdate[] = [];
  let bytes = 0;
  let base = 0;
  for await (const batch of upload.batches) {
    for (const u of updatesOfBatch(batch, layout, base)) {
      bytes += sizeOf(u);
      if (bytes > maxBytes)
        throw new DomainError(
          "payload-too-large",
          `the upload's updates exceed ${maxBytes} bytes; send fewer rows per call`,
        );
      updates.push(u);
    }
    base += batch.numRows;
  }
  return updates;
}

const text = (v: string | number | undefined) => (typeof v === "string" ? v : undefined);
const number = (v: string | number | undefined) => (typeof v === "number" ? v : undefined);

export const evaluationOf = (u: SpanUpdate): SpanEvaluation => ({
  spanId: u.spanId,
  name: u.name,
  label: text(u.values.label),
  score: number(u.values.score),
  explanation: text(u.values.explanation),
});

export const annotationOf = (u: SpanUpdate): SpanAnnotationValue => ({
  spanId: u.spanId,
  name: u.name,
  label: text(u.values.label),
  score: number(u.values.score),
  text: text(u.values.text),
});

export const patchOf = (u: SpanUpdate): SpanMetadataPatch => ({
  spanId: u.spanId,
  patchJson: String(u.values.patch),
});

/** Which project's spans an update is for: the space (internal uuid) and the project's name. */
export interface SpanTarget {
  spaceId: string;
  projectName: string;
}

/**
 * The tracing Flight requests: DoPut #6 writeSpanEvaluationRequest, #7
 * writeSpanAnnotationRequest, #8 writeSpanAttributesMetadataRequest.
 */
export function spanFlight(tracing: BulkBackend) {
  const target = (req: { spaceId: string; externalModelId: string }, what: string): SpanTarget => ({
    spaceId: idOf("Space", req.spaceId, `${what}.spaceId`),
    projectName: required(req.externalModelId, `${what}.externalModelId`),
  });

  /**
   * An upload's evaluations, read and checked whole before anything is written; writing them
   * is the call returned. `columns` are the upload's columns that hold them (spans.log's
   * upload has span columns beside them).
   */
  const readEvaluations = async (
    upload: FlightUpload,
    opts: { idColumn?: string | undefined; columns?: readonly string[] } = {},
  ): Promise<(where: SpanTarget, caller: FlightCaller) => Promise<WriteSpanUpdatesResponse>> => {
    const idColumn = opts.idColumn ?? SPAN_ID_COLUMN;
    const schema = opts.columns ? upload.schema.select([idColumn, ...opts.columns]) : upload.schema;
    const layout = spanUpdateLayout(schema, EVALUATIONS, idColumn);
    const evaluations = (await readUpdates(upload, layout)).map(evaluationOf);
    return (where, caller) =>
      tracing.call(TracingServiceService.writeSpanEvaluations, { ...where, evaluations }, caller);
  };

  const writeEvaluations = async (
    where: SpanTarget,
    upload: FlightUpload,
    caller: FlightCaller,
    idColumn?: string,
  ): Promise<WriteSpanUpdatesResponse> =>
    (await readEvaluations(upload, { idColumn }))(where, caller);

  return {
    /** For `POST /v1/pandas_arrow`: update_evaluations with force_http, and spans.log's evals. */
    readEvaluations,
    writeEvaluations,

    async writeSpanEvaluationRequest(
      req: WriteSpanEvaluationRequest,
      upload: FlightUpload,
      caller: FlightCaller,
    ): Promise<Uint8Array> {
      const where = target(req, "writeSpanEvaluationRequest");
      const res = await writeEvaluations(where, upload, caller, req.rowIdColumnName || undefined);
      return WriteSpanEvaluationResponse.encode(res).finish();
    },

    async writeSpanAnnotationRequest(
      req: WriteSpanAnnotationRequest,
      upload: FlightUpload,
      caller: FlightCaller,
    ): Promise<Uint8Array> {
      const where = target(req, "writeSpanAnnotationRequest");
      const layout = spanUpdateLayout(upload.schema, ANNOTATIONS, req.rowIdColumnName || undefined);
      const updates = await readUpdates(upload, layout);
      const res = await tracing.call(
        TracingServiceService.writeSpanAnnotations,
        { ...where, annotations: updates.map(annotationOf) },
        caller,
      );
      return WriteSpanAnnotationResponse.encode(res).finish();
    },

    /** Rows with no patch (null) change nothing and count as processed. */
    async writeSpanAttributesMetadataRequest(
      req: WriteSpanAttributesMetadataRequest,
      upload: FlightUpload,
      caller: FlightCaller,
    ): Promise<Uint8Array> {
      const where = target(req, "writeSpanAttributesMetadataRequest");
      const layout = metadataLayout(upload.schema);
      let rows = 0;
      const counted = async function* () {
        for await (const batch of upload.batches) {
          rows += batch.numRows;
          yield batch;
        }
      };
      const updates = await readUpdates({ schema: upload.schema, batches: counted() }, layout);
      const res = await tracing.call(
        TracingServiceService.patchSpanMetadata,
        { ...where, patches: updates.map(patchOf) },
        caller,
      );
      return WriteSpanAttributesMetadataResponse.encode({
        spansProcessed: BigInt(rows),
        spansUpdated: res.spansUpdated,
        spansFailed: BigInt(res.errors.length),
        errors: res.errors,
      }).finish();
    },
  };
}
