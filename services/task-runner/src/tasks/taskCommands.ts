import { streamId, type TaskEvaluatorSettings, type TaskSettings } from "@argus/contracts";
import { actorMetadata, uuidv7, type CallContext } from "@argus/platform";
import type {
  CreateTaskRequest,
  DeleteTaskRequest,
  DeleteTaskResponse,
  Task,
  TaskEvaluator,
  UpdateTaskRequest,
} from "@argus/proto/tasks/v1/tasks";
import { requirePermissionAt } from "@argus/spaces";
import type { TasksDeps } from "../deps.ts";
import { accessOf, permissionOf, placeOf, type TaskKind } from "../shared/access.ts";
import {
  invalid,
  isTaskType,
  taskDecider,
  unprocessable,
  type Target,
  type TaskCommand,
} from "./taskDecider.ts";
import { taskRow, toTask } from "./taskRows.ts";

const parseJson = <T>(text: string | undefined, what: string): T | null => {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw invalid(`${what} is not valid JSON`);
  }
};

/**
 * An AGENT_CALL run configuration names an AGENT integration the caller can read (422
 * otherwise, as the public API rejects other types); the worker resolves it again per run.
 */
async function checkRunConfiguration(
  deps: TasksDeps,
  ctx: CallContext,
  config: Record<string, unknown> | null | undefined,
): Promise<void> {
  if (config?.experiment_type !== "AGENT_CALL") return;
  // The gateway decoded the public id (a task stores internal ids).
  const id = String(config.integration_id ?? "");
  const agent = await deps.places.integration(ctx, id).catch(() => undefined);
  if (agent?.type !== "AGENT")
    throw unprocessable("run_configuration.integration_id must name an AGENT integration");
}

/** The evaluator each attachment names must be in the task's space and of the task's kind. */
async function evaluatorsOf(
  deps: TasksDeps,
  ctx: CallContext,
  spaceId: string,
  taskType: string,
  inputs: readonly TaskEvaluator[],
): Promise<TaskEvaluatorSettings[]> {
  // A REMOTE evaluator is code that runs elsewhere: CODE_EVALUATION tasks run it.
  const wanted = taskType === "TEMPLATE_EVALUATION" ? ["TEMPLATE"] : ["CODE", "REMOTE"];
  const out: TaskEvaluatorSettings[] = [];
  for (const input of inputs) {
    const e = await deps.places.evaluator(ctx, input.evaluatorId, "");
    if (e.spaceId !== spaceId)
      throw unprocessable(`evaluator ${e.name} is not in the task's space`);
    if (!wanted.includes(e.type))
      throw unprocessable(
        `a ${taskType} task runs ${wanted.join(" or ")} evaluators; ${e.name} is ${e.type}`,
      );
    if (input.evaluatorVersionId) {
      const pinned = await deps.places
        .evaluator(ctx, input.evaluatorId, input.evaluatorVersionId)
        .catch(() => undefined);
      if (!pinned)
        throw unprocessable(`evaluator_version_id is not a version of evaluator ${e.name}`);
    }
    out.push({
      evaluator_id: e.id,
      evaluator_name: e.name,
      evaluator_version_id: input.evaluatorVersionId || null,
      query_filter: input.queryFilter ?? null,
      column_mappings: parseJson<Record<string, string>>(
        input.columnMappingsJson,
        "column_mappings",
      ),
      query_mappings: parseJson<unknown[]>(input.queryMappingsJson, "query_mappings"),
    });
  }
  return out;
}

export function taskCommands(deps: TasksDeps) {
  const { pool, spaces } = deps;

  const run = (ctx: CallContext, id: string, command: TaskCommand) =>
    deps.commands.handle(streamId("task", id), taskDecider, command, actorMetadata(ctx));

  /** The task, visible to the caller (else 404) and changeable with `action` (else 403). */
  async function changeable(ctx: CallContext, id: string, action: "UPDATE" | "DELETE") {
    const row = await taskRow(pool, ctx, id);
    const kind: TaskKind = row.project_id ? "project" : "dataset";
    await requirePermissionAt(
      spaces,
      ctx,
      placeOf(row),
      accessOf(kind),
      permissionOf(kind, action),
    );
    return row;
  }

  return {
    async createTask(req: CreateTaskRequest, ctx: CallContext): Promise<Task> {
      if (!isTaskType(req.type))
        throw invalid("type must be TEMPLATE_EVALUATION, CODE_EVALUATION or RUN_EXPERIMENT");
      if ((req.projectId !== "") === (req.datasetId !== ""))
        throw invalid("give exactly one of project_id and dataset_id");
      let target: Target;
      let spaceId: string;
      if (req.projectId) {
        const project = await deps.places.project(ctx, req.projectId);
        target = { kind: "project", projectId: project.id };
        spaceId = project.spaceId;
      } else {
        const dataset = await deps.places.dataset(ctx, req.datasetId);
        spaceId = dataset.spaceId;
        for (const id of req.experimentIds) {
          const e = await deps.places.experiment(ctx, id);
          if (e.datasetId !== dataset.id)
            throw unprocessable("every experiment_id must be an experiment of the task's dataset");
        }
        target = {
          kind: "dataset",
          datasetId: dataset.id,
          experimentIds: [...new Set(req.experimentIds)],
        };
      }
      const kind: TaskKind = target.kind;
      await requirePermissionAt(
        spaces,
        ctx,
        {
          accountId: ctx.principal.accountId,
          spaceId,
          ...(target.kind === "project" ? { projectId: target.projectId } : {}),
        },
        accessOf(kind),
        permissionOf(kind, "CREATE"),
      );
      const runConfiguration = parseJson<Record<string, unknown>>(
        req.runConfigurationJson,
        "run_configuration",
      );
      await checkRunConfiguration(deps, ctx, runConfiguration);
      const settings: TaskSettings = {
        name: req.name,
        sampling_rate: req.samplingRate ?? null,
        is_continuous: req.isContinuous ?? false,
        query_filter: req.queryFilter ?? null,
        query_filters: parseJson<Record<string, unknown>>(req.queryFiltersJson, "query_filters"),
        evaluators: await evaluatorsOf(deps, ctx, spaceId, req.type, req.evaluators),
      };
      const id = uuidv7();
      await run(ctx, id, {
        type: "CreateTask",
        id,
        accountId: ctx.principal.accountId,
        spaceId,
        task: {
          type: req.type,
          target,
          settings,
          runConfiguration,
        },
        userId: ctx.principal.userId,
        now: deps.clock.now(),
      });
      return toTask(await taskRow(pool, ctx, id));
    },

    async updateTask(req: UpdateTaskRequest, ctx: CallContext): Promise<Task> {
      const row = await changeable(ctx, req.id, "UPDATE");
      const fields = new Set(req.fields);
      if (fields.size === 0) throw invalid("at least one field must be provided");
      const changes: Partial<TaskSettings> = {};
      if (fields.has("name")) changes.name = req.name;
      if (fields.has("sampling_rate")) changes.sampling_rate = req.samplingRate ?? null;
      if (fields.has("is_continuous")) changes.is_continuous = req.isContinuous ?? false;
      if (fields.has("query_filter")) changes.query_filter = req.queryFilter ?? null;
      if (fields.has("query_filters"))
        changes.query_filters = parseJson(req.queryFiltersJson, "query_filters");
      if (fields.has("evaluators"))
        changes.evaluators = await evaluatorsOf(
          deps,
          ctx,
          row.space_id,
          row.task_type,
          req.evaluators,
        );
      const runConfiguration = fields.has("run_configuration")
        ? (parseJson<Record<string, unknown>>(req.runConfigurationJson, "run_configuration") ??
          undefined)
        : undefined;
      if (fields.has("run_configuration") && runConfiguration === undefined)
        throw invalid("run_configuration must be an object");
      await checkRunConfiguration(deps, ctx, runConfiguration);
      await run(ctx, row.id, {
        type: "UpdateTask",
        changes,
        ...(runConfiguration === undefined ? {} : { runConfiguration }),
        now: deps.clock.now(),
      });
      return toTask(await taskRow(pool, ctx, row.id));
    },

    async deleteTask(req: DeleteTaskRequest, ctx: CallContext): Promise<DeleteTaskResponse> {
      const row = await changeable(ctx, req.id, "DELETE");
      await run(ctx, row.id, { type: "DeleteTask", now: deps.clock.now() });
      return {};
    },
  };
}
