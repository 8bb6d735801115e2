import { DomainError, decodeCanonicalId, decodeId, encodeId, notFound } from "@argus/platform";
import {
  DatasetServiceService,
  type Experiment,
  type ExperimentRun,
  type ExperimentRunInput,
  type ExperimentWrite,
} from "@argus/proto/dataset/v1/dataset";
import type { Backend } from "../backend.ts";
import { cursorBinding, searchPagination, searchPosition } from "../http/cursor.ts";
import {
  JsonObjectText,
  noContent,
  withFieldsText,
  type ResourceHandlers,
} from "../http/handler.ts";
import { NO_EXAMPLE, annotateRequest, annotationsMember, exampleUuid } from "./datasets.ts";
import { type PathParam, pathId } from "./params.ts";
import { listPage } from "./listPage.ts";

/** Runs per page when a search names no `limit` (the list's default comes from the document). */
const DEFAULT_RUNS_LIMIT = 50;

type Fields = Record<string, unknown>;

/** Spec "Experiment (list item)", in the SDK's field order; null where there is no dataset. */
export function toPublicExperiment(e: Experiment) {
  return {
    id: encodeId("Experiment", e.id),
    name: e.name,
    space_id: encodeId("Space", e.spaceId),
    dataset_id: e.datasetId ? encodeId("Dataset", e.datasetId) : null,
    dataset_version_id: e.datasetVersionId ? encodeId("DatasetVersion", e.datasetVersionId) : null,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    integration_id: e.integrationId ? encodeId("Integration", e.integrationId) : null,
  };
}

/** The SDK's ExperimentWithRunIds: the experiment and the inserted runs' ids, in request order. */
function toExperimentWithRunIds(w: ExperimentWrite) {
  if (!w.experiment) throw new Error("the dataset service answered a run write without it");
  return {
    ...toPublicExperiment(w.experiment),
    run_ids: w.runIds.map((id) => encodeId("ExperimentRun", id)),
  };
}

/** The uuid of a public run id, only in the exact form the gateway gives out. */
const runUuid = (publicId: string): string | null => decodeCanonicalId("ExperimentRun", publicId);

/**
 * A run to write: `example_id` as an internal uuid ("" when absent or null; NO_EXAMPLE when it
 * cannot name an example), `output`, and every other field as one JSON object of text.
 */
export function newRun(run: Fields): ExperimentRunInput {
  const { example_id: exampleId, output, ...fields } = run;
  return {
    exampleId:
      exampleId === undefined || exampleId === null
        ? ""
        : (exampleUuid(String(exampleId)) ?? NO_EXAMPLE),
    output: String(output),
    fieldsJson: JSON.stringify(fields),
  };
}

/** One run as JSON text: `id`, `example_id` and `output`, then its other fields as stored. */
export function runText(r: ExperimentRun): string {
  return withFieldsText(
    `{"id":${JSON.stringify(encodeId("ExperimentRun", r.id))}` +
      `,"example_id":${r.exampleId ? JSON.stringify(encodeId("DatasetExample", r.exampleId)) : "null"}` +
      `,"output":${JSON.stringify(r.output)}` +
      annotationsMember(r.annotationsJson),
    r.fieldsJson,
    `run ${r.id}`,
  );
}

/** `{"experiment_runs":[...]}`, with `pagination` when the handler owns it (search). */
export function runsText(runs: readonly ExperimentRun[], pagination?: object): JsonObjectText {
  const tail = pagination ? `,"pagination":${JSON.stringify(pagination)}` : "";
  return new JsonObjectText(`{"experiment_runs":[${runs.map(runText).join(",")}]${tail}}`);
}

/**
 * Spec 12's filters as the service takes them. Both ids together are a validation error (400),
 * checked before either is looked at; an id that cannot name a dataset or space is a 404, as
 * the service answers for one that does not exist.
 */
function experimentListFilter(query: Record<string, unknown>): {
  datasetId: string;
  spaceId: string;
  name: string;
} {
  const dataset = query.dataset_id as string | undefined;
  const space = query.space_id as string | undefined;
  if (dataset !== undefined && space !== undefined)
    throw new DomainError("invalid-request", "give dataset_id or space_id, not both");
  let datasetId = "";
  if (dataset !== undefined) {
    datasetId = decodeId("Dataset", dataset) ?? "";
    if (!datasetId) throw notFound("dataset");
  }
  let spaceId = "";
  if (space !== undefined) {
    spaceId = decodeId("Space", space) ?? "";
    if (!spaceId) throw notFound("space");
  }
  return { datasetId, spaceId, name: (query.name as string | undefined) ?? "" };
}

export function experimentHandlers(
  dataset: Backend,
  cursorSecret: string,
): ResourceHandlers<"experiments"> {
  const experimentId = (req: PathParam<"experiment_id">): string =>
    pathId("Experiment", req.params.experiment_id, "experiment");

  return {
    async list_experiments(req) {
      const res = await dataset.call(
        DatasetServiceService.listExperiments,
        { page: req.page, ...experimentListFilter(req.query) },
        req,
      );
      return listPage("experiments", res.experiments.map(toPublicExperiment), res.page);
    },

    async create_experiment(req) {
      const body = req.body;
      // The schema lets exactly one of the two through.
      let datasetId = "";
      let spaceId = "";
      if (typeof body.dataset_id === "string") {
        datasetId = decodeId("Dataset", body.dataset_id) ?? "";
        if (!datasetId) throw notFound("dataset");
      } else {
        spaceId = decodeId("Space", body.space_id ?? "") ?? "";
        if (!spaceId) throw notFound("space");
      }
      const write = await dataset.call(
        DatasetServiceService.createExperiment,
        { name: body.name, datasetId, spaceId, runs: body.experiment_runs.map(newRun) },
        req,
      );
      if (!write.experiment) throw new Error("the dataset service answered a create without it");
      return { status: 201, body: toPublicExperiment(write.experiment) };
    },

    async get_experiment(req) {
      const e = await dataset.call(
        DatasetServiceService.getExperiment,
        { id: experimentId(req) },
        req,
      );
      return { status: 200, body: toPublicExperiment(e) };
    },

    delete_experiment: (req) =>
      noContent(
        dataset.call(DatasetServiceService.deleteExperiment, { id: experimentId(req) }, req),
      ),

    async list_experiment_runs(req) {
      const res = await dataset.call(
        DatasetServiceService.listExperimentRuns,
        { experimentId: experimentId(req), page: req.page },
        req,
      );
      return { status: 200, body: runsText(res.runs), nextAfter: res.page?.nextAfter ?? "" };
    },

    async insert_experiment_runs(req) {
      const body = req.body;
      const write = await dataset.call(
        DatasetServiceService.insertExperimentRuns,
        { experimentId: experimentId(req), runs: body.experiment_runs.map(newRun) },
        req,
      );
      return { status: 201, body: toExperimentWithRunIds(write) };
    },

    async annotate_experiment_runs(req) {
      await dataset.call(
        DatasetServiceService.annotateRuns,
        annotateRequest(experimentId(req), req.body, runUuid),
        req,
      );
      return { status: 202 };
    },

    async search_experiment_runs(req) {
      const id = experimentId(req);
      const body = req.body ?? {};
      const filter = body.filter ?? "";
      // Bound to the experiment and the filter, as a list's query cursor is to its query.
      const binding = cursorBinding("search_experiment_runs", { experiment_id: id }, { filter });
      const after = searchPosition(cursorSecret, binding, body.cursor);
      const res = await dataset.call(
        DatasetServiceService.searchExperimentRuns,
        { experimentId: id, page: { limit: body.limit ?? DEFAULT_RUNS_LIMIT, after }, filter },
        req,
      );
      const next = res.page?.nextAfter ?? "";
      const pagination = searchPagination(cursorSecret, binding, next);
      return { status: 200, body: runsText(res.runs, pagination) };
    },
  };
}
