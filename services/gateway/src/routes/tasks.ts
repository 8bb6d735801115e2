import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import {
  TaskServiceService,
  type Task,
  type TaskEvaluator,
  type TaskRun,
} from "@argus/proto/tasks/v1/tasks";
import type { Backend } from "../backend.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type Body, type ResourceHandlers } from "../http/handler.ts";
import { type PathParam, pathId, spaceListQuery, utcText } from "./params.ts";
import { listPage } from "./listPage.ts";

type Json = Record<string, unknown>;

type EvaluatorBody = components["schemas"]["TaskEvaluatorInput"];
type UpdateTaskBody = Body<"update_task">;

/** The schema's `if`: an update with `run_configuration` is a RUN_EXPERIMENT task's. */
const updatesRun = (
  b: UpdateTaskBody,
): b is components["schemas"]["UpdateRunExperimentTaskRequest"] => "run_configuration" in b;

/**
 * Sent for a body id that does not decode where the service reads "" as "not given" (a task's
 * project or dataset, a version pin, a dataset version): it names nothing, so the service
 * answers it as an unknown id at the point of its own order (the service assigns uuid v7 ids).
 */
export const NO_SUCH_ID = "00000000-0000-0000-0000-000000000000";

/**
 * A body id as the service's uuid. One that does not decode is sent as "", which names nothing:
 * the service then answers its 404 in the public API's order, which the gateway alone could not
 * keep (as webhook subscriptions do).
 */
const bodyId = (type: string, raw: string): string => decodeId(type, raw) ?? "";

/** A body id that "" would turn into "not given": one that does not decode names nothing. */
const givenId = (type: string, raw: string | null | undefined): string =>
  raw === undefined || raw === null ? "" : (decodeId(type, raw) ?? NO_SUCH_ID);

const bodyIds = (type: string, raw: string[] | undefined): string[] =>
  (raw ?? []).map((id) => bodyId(type, id));

const TASK_RUN_STATUSES = new Set(["PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED"]);

/** The ids a run configuration carries (flat, beside `experiment_type`), by public id type. */
const RUN_CONFIGURATION_IDS: Record<string, string> = {
  ai_integration_id: "AiIntegration",
  prompt_version_id: "PromptVersion",
  integration_id: "Integration",
  evaluator_version_id: "EvaluatorVersion",
};

/**
 * The nullable id of each variant, null when absent, as the SDK's response models have it
 * (`LlmGenerationRunConfig.prompt_version_id`, `TemplateEvaluationRunConfig.evaluator_version_id`).
 */
const NULLABLE_RUN_CONFIGURATION_ID: Record<string, string> = {
  LLM_GENERATION: "prompt_version_id",
  TEMPLATE_EVALUATION: "evaluator_version_id",
};

/**
 * The configuration as sent, its ids as the service's uuids. The service keeps the configuration
 * as given, so an id that does not decode names nothing and is refused here (404), never stored.
 */
function runConfigurationToService(rc: Json): string {
  const out: Json = { ...rc };
  for (const [field, type] of Object.entries(RUN_CONFIGURATION_IDS)) {
    const v = out[field];
    if (typeof v !== "string") continue;
    const uuid = decodeId(type, v);
    if (uuid === null)
      throw new DomainError("resource-not-found", `run_configuration.${field} names nothing`);
    out[field] = uuid;
  }
  return JSON.stringify(out);
}

/** JSON text a service stored as an object, or a 500: the contract is broken. */
function parseObject(text: string, what: string): Json {
  const v = JSON.parse(text) as unknown;
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new Error(`${what} is not a JSON object`);
  return v as Json;
}

/** JSON text a service stored as an array, or a 500. */
function parseArray(text: string, what: string): unknown[] {
  const v = JSON.parse(text) as unknown;
  if (!Array.isArray(v)) throw new Error(`${what} is not a JSON array`);
  return v;
}

function publicRunConfiguration(text: string, taskId: string): Json {
  const rc = parseObject(text, `run_configuration of task ${taskId}`);
  const out: Json = { ...rc };
  for (const [field, type] of Object.entries(RUN_CONFIGURATION_IDS)) {
    const v = out[field];
    if (typeof v === "string" && v !== "") out[field] = encodeId(type, v);
  }
  const nullable = NULLABLE_RUN_CONFIGURATION_ID[String(rc.experiment_type)];
  if (nullable !== undefined && (out[nullable] === undefined || out[nullable] === ""))
    out[nullable] = null;
  return out;
}

function publicEvaluator(e: TaskEvaluator, taskId: string) {
  // The trace/session shape is the one with query mappings; the span shape's fields are then
  // null, and the other way round (models/task_evaluator.py).
  const traceShape = e.queryMappingsJson !== undefined;
  const what = `evaluator ${e.evaluatorId} of task ${taskId}`;
  return {
    evaluator_id: encodeId("Evaluator", e.evaluatorId),
    evaluator_name: e.evaluatorName,
    evaluator_version_id: e.evaluatorVersionId
      ? encodeId("EvaluatorVersion", e.evaluatorVersionId)
      : null,
    query_filter: traceShape ? null : (e.queryFilter ?? null),
    column_mappings:
      traceShape || e.columnMappingsJson === undefined
        ? null
        : parseObject(e.columnMappingsJson, `column_mappings of ${what}`),
    query_mappings:
      e.queryMappingsJson === undefined
        ? null
        : parseArray(e.queryMappingsJson, `query_mappings of ${what}`),
  };
}

function toPublicTask(t: Task) {
  const runExperiment = t.type === "RUN_EXPERIMENT";
  return {
    id: encodeId("Task", t.id),
    name: t.name,
    type: t.type,
    // Exactly one data source; the other is null (models/task.py).
    project_id: t.projectId ? encodeId("Project", t.projectId) : null,
    dataset_id: t.datasetId ? encodeId("Dataset", t.datasetId) : null,
    // Sampling exists only on project tasks: null on dataset tasks whatever was stored.
    sampling_rate: t.projectId ? (t.samplingRate ?? null) : null,
    is_continuous: t.isContinuous,
    query_filter: t.queryFilter ?? null,
    query_filters:
      t.queryFiltersJson === undefined
        ? null
        : parseObject(t.queryFiltersJson, `query_filters of task ${t.id}`),
    // The SDK documents a RUN_EXPERIMENT task's evaluators as empty.
    evaluators: runExperiment ? [] : t.evaluators.map((e) => publicEvaluator(e, t.id)),
    experiment_ids: t.experimentIds.map((id) => encodeId("Experiment", id)),
    run_configuration:
      runExperiment && t.runConfigurationJson !== undefined
        ? publicRunConfiguration(t.runConfigurationJson, t.id)
        : null,
    last_run_at: t.lastRunAt || null,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    // Null, as models/task.py allows, when no user created it (a service account).
    created_by_user_id: t.createdByUserId ? encodeId("User", t.createdByUserId) : null,
  };
}

function toPublicTaskRun(r: TaskRun) {
  // The document admits only the five states; another one from the service breaks the contract.
  if (!TASK_RUN_STATUSES.has(r.status))
    throw new Error(`task run ${r.id} has an unknown status ${r.status}`);
  return {
    id: encodeId("TaskRun", r.id),
    task_id: encodeId("Task", r.taskId),
    experiment_id: r.experimentId ? encodeId("Experiment", r.experimentId) : null,
    status: r.status,
    // The specification types these as date-times (never null): absent until they happen.
    ...(r.runStartedAt ? { run_started_at: r.runStartedAt } : {}),
    ...(r.runFinishedAt ? { run_finished_at: r.runFinishedAt } : {}),
    data_start_time: r.dataStartTime || null,
    data_end_time: r.dataEndTime || null,
    num_successes: r.numSuccesses,
    num_errors: r.numErrors,
    num_skipped: r.numSkipped,
    created_at: r.createdAt,
    // Likewise an Id in the specification: absent when no user triggered it.
    ...(r.createdByUserId ? { created_by_user_id: encodeId("User", r.createdByUserId) } : {}),
    failure_reason: r.failureReason ?? null,
  };
}

function evaluatorToService(e: EvaluatorBody): TaskEvaluator {
  // The trace/session shape has `query_mappings`; the span shape has a filter and columns.
  const span = "query_mappings" in e ? undefined : e;
  return {
    evaluatorId: bodyId("Evaluator", e.evaluator_id),
    evaluatorName: "",
    // "" is "not pinned" to the service, so a pin that does not decode must not become "".
    evaluatorVersionId: givenId("EvaluatorVersion", e.evaluator_version_id),
    ...(span?.query_filter === undefined ? {} : { queryFilter: span.query_filter }),
    // Each shape's mappings travel only when given: which one is present tells the shapes apart.
    ...(span?.column_mappings === undefined
      ? {}
      : { columnMappingsJson: JSON.stringify(span.column_mappings) }),
    ...("query_mappings" in e ? { queryMappingsJson: JSON.stringify(e.query_mappings) } : {}),
  };
}

/** A list filter's id; one that cannot name a readable resource is that resource's 404. */
function filterId(raw: string | undefined, type: string, what: string): string {
  if (raw === undefined) return "";
  const id = decodeId(type, raw);
  if (id === null) throw notFound(what);
  return id;
}

const taskId = (req: PathParam<"task_id">): string => pathId("Task", req.params.task_id, "task");
const runId = (req: PathParam<"run_id">): string =>
  pathId("TaskRun", req.params.run_id, "task run");

/** The sampling settings an evaluation task's create or update body gives (absent: not given). */
const samplingOf = (b?: { sampling_rate?: number; is_continuous?: boolean }) => ({
  ...(b?.sampling_rate === undefined ? {} : { samplingRate: b.sampling_rate }),
  ...(b?.is_continuous === undefined ? {} : { isContinuous: b.is_continuous }),
});

export function taskHandlers(backend: Backend): ResourceHandlers<"tasks"> {
  const S = TaskServiceService;
  return {
    async list_tasks(req) {
      const query = spaceListQuery(req);
      // A space_id that cannot name a space matches nothing, as on every space-level list.
      if (query === null) return listPage("tasks", []);
      const res = await backend.call(
        S.listTasks,
        {
          ...query,
          projectId: filterId(req.query.project_id, "Project", "project"),
          datasetId: filterId(req.query.dataset_id, "Dataset", "dataset"),
          type: req.query.type ?? "",
        },
        req,
      );
      return listPage("tasks", res.tasks.map(toPublicTask), res.page);
    },

    async create_task(req) {
      const b = req.body;
      // The type selects the schema, and each schema admits only its own fields.
      const run = b.type === "RUN_EXPERIMENT" ? b : undefined;
      const evaluation = b.type === "RUN_EXPERIMENT" ? undefined : b;
      const res = await backend.call(
        S.createTask,
        {
          type: b.type,
          name: b.name,
          // "" is "not given" here (exactly one of the two is): see givenId.
          projectId: givenId("Project", evaluation?.project_id),
          datasetId: givenId("Dataset", b.dataset_id),
          ...samplingOf(evaluation),
          ...(evaluation?.query_filter === undefined
            ? {}
            : { queryFilter: evaluation.query_filter }),
          ...(evaluation?.query_filters === undefined
            ? {}
            : { queryFiltersJson: JSON.stringify(evaluation.query_filters) }),
          evaluators: (evaluation?.evaluators ?? []).map(evaluatorToService),
          experimentIds: bodyIds("Experiment", evaluation?.experiment_ids),
          ...(run === undefined
            ? {}
            : { runConfigurationJson: runConfigurationToService(run.run_configuration) }),
        },
        req,
      );
      return { status: 201, body: toPublicTask(res) };
    },

    async get_task(req) {
      const res = await backend.call(S.getTask, { id: taskId(req) }, req);
      return { status: 200, body: toPublicTask(res) };
    },

    async update_task(req) {
      const id = taskId(req);
      const b = req.body;
      const run = updatesRun(b) ? b : undefined;
      const evaluation = updatesRun(b) ? undefined : b;
      const res = await backend.call(
        S.updateTask,
        {
          id,
          // Which fields change is what the body names; null (query_filter, query_filters) is a
          // named field sent absent, which clears it.
          fields: Object.keys(b),
          name: b.name ?? "",
          ...samplingOf(evaluation),
          ...(typeof evaluation?.query_filter === "string"
            ? { queryFilter: evaluation.query_filter }
            : {}),
          ...(evaluation?.query_filters
            ? { queryFiltersJson: JSON.stringify(evaluation.query_filters) }
            : {}),
          evaluators: (evaluation?.evaluators ?? []).map(evaluatorToService),
          ...(run?.run_configuration === undefined
            ? {}
            : { runConfigurationJson: runConfigurationToService(run.run_configuration) }),
        },
        req,
      );
      return { status: 200, body: toPublicTask(res) };
    },

    delete_task: (req) => noContent(backend.call(S.deleteTask, { id: taskId(req) }, req)),

    async trigger_task_run(req) {
      const id = taskId(req);
      // The body is optional: none is an evaluation task's trigger with every default.
      const b: NonNullable<Body<"trigger_task_run">> = req.body ?? {};
      // Only a RUN_EXPERIMENT trigger names an experiment (the schema's `else`).
      const run = "experiment_name" in b ? b : undefined;
      const evaluation = "experiment_name" in b ? undefined : b;
      const res = await backend.call(
        S.triggerRun,
        {
          taskId: id,
          // The service refuses (400) a field of the other task type, which only it knows.
          fields: Object.keys(b),
          dataStartTime: utcText(evaluation?.data_start_time, "data_start_time"),
          dataEndTime: utcText(evaluation?.data_end_time, "data_end_time"),
          maxSpans: evaluation?.max_spans ?? 0,
          overrideEvaluations: evaluation?.override_evaluations ?? false,
          experimentIds: bodyIds("Experiment", evaluation?.experiment_ids),
          experimentName: run?.experiment_name ?? "",
          // "" is "the latest version" to the service: see givenId.
          datasetVersionId: givenId("DatasetVersion", run?.dataset_version_id),
          exampleIds: bodyIds("DatasetExample", run?.example_ids),
          maxExamples: run?.max_examples ?? 0,
          ...(run?.query_filter === undefined ? {} : { queryFilter: run.query_filter }),
          tracingMetadata: run?.tracing_metadata ?? {},
          evaluationTaskIds: bodyIds("Task", run?.evaluation_task_ids),
        },
        req,
      );
      return { status: 201, body: toPublicTaskRun(res) };
    },

    async list_task_runs(req) {
      const res = await backend.call(
        S.listRuns,
        {
          page: req.page,
          taskId: taskId(req),
          status: req.query.status ?? "",
        },
        req,
      );
      return listPage("task_runs", res.taskRuns.map(toPublicTaskRun), res.page);
    },

    async get_task_run(req) {
      const res = await backend.call(S.getRun, { id: runId(req) }, req);
      return { status: 200, body: toPublicTaskRun(res) };
    },

    async cancel_task_run(req) {
      // A run that is not PENDING or RUNNING is the service's 409, passed on as it is.
      const res = await backend.call(S.cancelRun, { id: runId(req) }, req);
      return { status: 200, body: toPublicTaskRun(res) };
    },
  };
}
