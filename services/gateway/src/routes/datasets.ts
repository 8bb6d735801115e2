import {
  DomainError,
  decodeCanonicalId,
  decodeId,
  encodeId,
  joinedUuidsOf,
  notFound,
} from "@argus/platform";
import {
  DatasetServiceService,
  type Dataset,
  type DatasetVersion,
  type DatasetWrite,
  type Example,
  type ExampleInput,
  type PackedExamples,
} from "@argus/proto/dataset/v1/dataset";
import type { Backend } from "../backend.ts";
import { memberElementTexts } from "../http/bodyText.ts";
import { cursorBinding, searchPagination, searchPosition } from "../http/cursor.ts";
import type { components } from "../generated/openapi.ts";
import {
  JsonObjectText,
  noContent,
  withFieldsText,
  type ResourceHandlers,
} from "../http/handler.ts";
import { type PathParam, pathId, spaceListQuery } from "./params.ts";
import { listPage } from "./listPage.ts";

/** Examples per page when a search names no `limit` (the list's default comes from the document). */
const DEFAULT_EXAMPLES_LIMIT = 50;

/**
 * A uuid that matches no example (the service assigns uuid v7 ids), sent where a request's
 * example id cannot name one, so the service still answers every other check first: in place
 * of a delete's ids when none can (the dataset, the version, DATASET_EXAMPLE_DELETE), and as
 * the example of such an experiment run (422 as for an unknown example, or 404 first when the
 * dataset or experiment is unknown).
 */
export const NO_EXAMPLE = "00000000-0000-0000-0000-000000000000";

type Fields = Record<string, unknown>;

function toPublicVersion(v: DatasetVersion) {
  return {
    id: encodeId("DatasetVersion", v.id),
    name: v.name,
    dataset_id: encodeId("Dataset", v.datasetId),
    created_at: v.createdAt,
    updated_at: v.updatedAt,
  };
}

/** A dataset as the public API shows it; `versions` only where the operation returns them. */
function toPublicDataset(d: Dataset, withVersions = false) {
  return {
    id: encodeId("Dataset", d.id),
    name: d.name,
    space_id: encodeId("Space", d.spaceId),
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    ...(withVersions ? { versions: d.versions.map(toPublicVersion) } : {}),
  };
}

/**
 * Spec "Dataset write result" (the SDK's DatasetVersionWithExampleIds). An update answers with
 * the ids as it was sent them (`sent`, at the positions the service names).
 */
function toWriteResult(w: DatasetWrite, sent?: readonly string[]) {
  if (!w.dataset) throw new Error("the dataset service answered a write without its dataset");
  return {
    ...toPublicDataset(w.dataset),
    dataset_version_id: encodeId("DatasetVersion", w.versionId),
    example_ids: sent
      ? w.examplePositions.map((i) => {
          const id = sent[i];
          if (id === undefined)
            throw new Error(`the dataset service named example ${i} of ${sent.length}`);
          return id;
        })
      : w.exampleIds.map((id) => encodeId("DatasetExample", id)),
  };
}

/**
 * The uuid of a public example id, or null when it cannot name an example: garbage, another
 * type, or any spelling other than the one the gateway gives out (so two distinct public ids
 * never name the same example).
 */
export const exampleUuid = (publicId: string): string | null =>
  decodeCanonicalId("DatasetExample", publicId);

/** One example as JSON text: its system fields, then its user-defined fields as stored. */
export function exampleText(e: Example): string {
  return withFieldsText(
    `{"id":${JSON.stringify(encodeId("DatasetExample", e.id))}` +
      `,"created_at":${JSON.stringify(e.createdAt)},"updated_at":${JSON.stringify(e.updatedAt)}` +
      annotationsMember(e.annotationsJson),
    e.fieldsJson,
    `example ${e.id}`,
  );
}

/** `,"annotations":[…]` from the service's JSON array text; nothing when there are none. */
export const annotationsMember = (annotationsJson: string): string =>
  annotationsJson ? `,"annotations":${annotationsJson}` : "";

/**
 * An annotate request for the service: each record id as the internal uuid of its type (""
 * when the public id names none of that type: the service leaves it out, as it does any id
 * that names no record).
 */
export function annotateRequest(
  parentId: string,
  body: components["schemas"]["AnnotateRecordsRequest"],
  uuidOf: (publicId: string) => string | null,
) {
  return {
    parentId,
    records: body.annotations.map((a) => ({
      recordId: uuidOf(a.record_id) ?? "",
      values: a.values,
    })),
  };
}

/** `{"examples":[...]}`, with `pagination` when the handler owns it (search). */
export function examplesText(examples: readonly Example[], pagination?: object): JsonObjectText {
  const tail = pagination ? `,"pagination":${JSON.stringify(pagination)}` : "";
  return new JsonObjectText(`{"examples":[${examples.map(exampleText).join(",")}]${tail}}`);
}

/**
 * The examples to write: each one's fields as JSON text (the schema already refused system
 * fields), the text the caller sent where it is the one JSON.stringify would write.
 */
function newExamples(body: { examples: Fields[] }): ExampleInput[] {
  const sent = memberElementTexts(body, "examples");
  return body.examples.map((fields, i) => ({
    id: "",
    fieldsJson: sent?.[i] ?? JSON.stringify(fields),
  }));
}

/**
 * An update's examples, packed: each id's uuid (an id that names no example becomes "", which
 * the service ignores), and the examples' other members as their fields, in one JSON array.
 */
function updatedExamples(examples: readonly Fields[]): PackedExamples {
  return {
    ids: joinedUuidsOf(
      "DatasetExample",
      examples.map((e) => e.id as string),
    ),
    fieldsJson: "",
    fields: JSON.stringify(examples.map(({ id: _, ...fields }) => fields)),
  };
}

/** The uuid of a `dataset_version_id`; "" when absent (the latest); 404 when it names none. */
function versionUuid(raw: unknown): string {
  if (raw === undefined || raw === "") return "";
  const id = decodeId("DatasetVersion", String(raw));
  if (id === null) throw notFound("dataset version");
  return id;
}

/**
 * A page position of an example list: the version the first page listed and the last example
 * sent, so a cursor of "the latest version" keeps to the version it started on.
 */
const examplePosition = (versionId: string, after: string): string => `${versionId}/${after}`;

function readExamplePosition(
  position: string,
  versionId: string,
): { versionId: string; after: string } {
  if (position === "") return { versionId, after: "" };
  const slash = position.indexOf("/");
  if (slash <= 0) throw new DomainError("invalid-request", "the cursor is invalid");
  return { versionId: position.slice(0, slash), after: position.slice(slash + 1) };
}

/**
 * Spec 8's answer in public ids, in request order: ids that could not name an example were
 * never sent and are not deleted; the others are deleted when the service says so.
 */
function deleteResult(
  requested: readonly string[],
  sent: ReadonlyMap<string, string>,
  res: { completed: boolean; deletedExampleIds: readonly string[] },
) {
  const deleted = new Set(res.deletedExampleIds);
  const isDeleted = (publicId: string) => {
    const uuid = sent.get(publicId);
    return uuid !== undefined && deleted.has(uuid);
  };
  return {
    completed: res.completed,
    deleted_example_ids: requested.filter(isDeleted),
    not_deleted_example_ids: requested.filter((id) => !isDeleted(id)),
  };
}

export function datasetHandlers(
  dataset: Backend,
  cursorSecret: string,
): ResourceHandlers<"datasets"> {
  const datasetId = (req: PathParam<"dataset_id">): string =>
    pathId("Dataset", req.params.dataset_id, "dataset");

  return {
    async list_datasets(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("datasets", []);
      const res = await dataset.call(DatasetServiceService.listDatasets, query, req);
      return listPage(
        "datasets",
        res.datasets.map((d) => toPublicDataset(d)),
        res.page,
      );
    },

    async create_dataset(req) {
      const body = req.body;
      const spaceId = decodeId("Space", body.space_id);
      if (spaceId === null) throw notFound("space");
      const write = await dataset.call(
        DatasetServiceService.createDataset,
        { spaceId, name: body.name, examples: newExamples(body) },
        req,
      );
      if (!write.dataset) throw new Error("the dataset service answered a create without it");
      return { status: 201, body: toPublicDataset(write.dataset) };
    },

    async get_dataset(req) {
      const d = await dataset.call(DatasetServiceService.getDataset, { id: datasetId(req) }, req);
      return { status: 200, body: toPublicDataset(d, true) };
    },

    async update_dataset(req) {
      const body = req.body;
      const d = await dataset.call(
        DatasetServiceService.updateDataset,
        { id: datasetId(req), name: body.name },
        req,
      );
      return { status: 200, body: toPublicDataset(d) };
    },

    delete_dataset: (req) =>
      noContent(dataset.call(DatasetServiceService.deleteDataset, { id: datasetId(req) }, req)),

    async list_dataset_examples(req) {
      const id = datasetId(req);
      const at = readExamplePosition(req.page.after, versionUuid(req.query.dataset_version_id));
      const res = await dataset.call(
        DatasetServiceService.listExamples,
        {
          datasetId: id,
          versionId: at.versionId,
          page: { limit: req.page.limit, after: at.after },
        },
        req,
      );
      const next = res.page?.nextAfter ?? "";
      return {
        status: 200,
        body: examplesText(res.examples),
        nextAfter: next ? examplePosition(res.versionId, next) : "",
      };
    },

    async search_dataset_examples(req) {
      const id = datasetId(req);
      const body = req.body ?? {};
      const filter = body.filter ?? "";
      const version = versionUuid(body.dataset_version_id);
      // Bound to the dataset, the version as asked and the filter, as a list's query cursor is.
      const binding = cursorBinding(
        "search_dataset_examples",
        { dataset_id: id },
        { dataset_version_id: version, filter },
      );
      const position = searchPosition(cursorSecret, binding, body.cursor);
      const at = readExamplePosition(position, version);
      const res = await dataset.call(
        DatasetServiceService.searchExamples,
        {
          datasetId: id,
          versionId: at.versionId,
          page: { limit: body.limit ?? DEFAULT_EXAMPLES_LIMIT, after: at.after },
          filter,
        },
        req,
      );
      const next = res.page?.nextAfter ?? "";
      const pagination = searchPagination(
        cursorSecret,
        binding,
        next && examplePosition(res.versionId, next),
      );
      return { status: 200, body: examplesText(res.examples, pagination) };
    },

    async insert_dataset_examples(req) {
      const body = req.body;
      const write = await dataset.call(
        DatasetServiceService.insertExamples,
        {
          datasetId: datasetId(req),
          versionId: versionUuid(req.query.dataset_version_id),
          examples: newExamples(body),
        },
        req,
      );
      return { status: 201, body: toWriteResult(write) };
    },

    async update_dataset_examples(req) {
      const body = req.body;
      const write = await dataset.call(
        DatasetServiceService.updateExamples,
        {
          datasetId: datasetId(req),
          versionId: versionUuid(req.query.dataset_version_id),
          examples: [],
          packedExamples: updatedExamples(body.examples),
          newVersion: body.new_version ?? "",
        },
        req,
      );
      // The updated examples by the ids they were sent under, not encoded again.
      return {
        status: 200,
        body: toWriteResult(
          write,
          body.examples.map((e) => e.id),
        ),
      };
    },

    async annotate_dataset_examples(req) {
      await dataset.call(
        DatasetServiceService.annotateExamples,
        annotateRequest(datasetId(req), req.body, exampleUuid),
        req,
      );
      return { status: 202 };
    },

    async delete_dataset_examples(req) {
      const body = req.body;
      const id = datasetId(req);
      const versionId = versionUuid(body.dataset_version_id);
      // Ids that cannot name an example are not sent: they are simply not deleted.
      const sent = new Map<string, string>();
      for (const publicId of body.example_ids) {
        const uuid = exampleUuid(publicId);
        if (uuid !== null) sent.set(publicId, uuid);
      }
      const res = await dataset.call(
        DatasetServiceService.deleteExamples,
        {
          datasetId: id,
          versionId,
          exampleIds: sent.size > 0 ? [...sent.values()] : [NO_EXAMPLE],
        },
        req,
      );
      return { status: 200, body: deleteResult(body.example_ids, sent, res) };
    },
  };
}
