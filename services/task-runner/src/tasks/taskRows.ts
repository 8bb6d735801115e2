import type { Queryable } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type { TaskEvaluatorSettings, TaskType } from "@argus/contracts";
import type { Task } from "@argus/proto/tasks/v1/tasks";
import { rowInAccount, type SpaceRow } from "@argus/spaces";

export interface TaskRow extends SpaceRow {
  task_type: TaskType;
  name: string;
  project_id: string | null;
  dataset_id: string | null;
  sampling_rate: number | null;
  is_continuous: boolean;
  query_filter: string | null;
  query_filters: Record<string, unknown> | null;
  evaluators: TaskEvaluatorSettings[];
  experiment_ids: string[];
  run_configuration: Record<string, unknown> | null;
  last_run_at: Date | null;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export const TASK_COLUMNS = `id, account_id, space_id, task_type, name, project_id, dataset_id,
  sampling_rate, is_continuous, query_filter, query_filters, evaluators, experiment_ids,
  run_configuration, last_run_at, created_by_user_id, created_at, updated_at`;

const json = (v: unknown) => JSON.stringify(v);

export const toTask = (r: TaskRow): Task => ({
  id: r.id,
  name: r.name,
  type: r.task_type,
  spaceId: r.space_id,
  projectId: r.project_id ?? "",
  datasetId: r.dataset_id ?? "",
  ...(r.sampling_rate === null ? {} : { samplingRate: r.sampling_rate }),
  isContinuous: r.is_continuous,
  ...(r.query_filter === null ? {} : { queryFilter: r.query_filter }),
  ...(r.query_filters === null ? {} : { queryFiltersJson: json(r.query_filters) }),
  evaluators: r.evaluators.map((e) => ({
    evaluatorId: e.evaluator_id,
    evaluatorName: e.evaluator_name,
    evaluatorVersionId: e.evaluator_version_id ?? "",
    ...(e.query_filter === null ? {} : { queryFilter: e.query_filter }),
    ...(e.column_mappings === null ? {} : { columnMappingsJson: json(e.column_mappings) }),
    ...(e.query_mappings === null ? {} : { queryMappingsJson: json(e.query_mappings) }),
  })),
  experimentIds: r.experiment_ids,
  ...(r.run_configuration === null ? {} : { runConfigurationJson: json(r.run_configuration) }),
  lastRunAt: r.last_run_at?.toISOString() ?? "",
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  createdByUserId: r.created_by_user_id,
});

/** The task if it is in the caller's account (authorization is the caller's to apply). */
export async function taskRow(db: Queryable, ctx: CallContext, id: string): Promise<TaskRow> {
  return rowInAccount<TaskRow>(db, ctx, "tasks", TASK_COLUMNS, id, "task");
}
