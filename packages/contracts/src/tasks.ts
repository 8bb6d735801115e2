/**
 * The task runner's events (`<root>.task-runner.<aggregate>.<Type>`): tasks, and each run's
 * life (created, started, finished or cancelled). Progress counts while a run is RUNNING are
 * its row's, not events; its end carries the final counts.
 */

export type TaskType = "TEMPLATE_EVALUATION" | "CODE_EVALUATION" | "RUN_EXPERIMENT";
export type TaskRunStatus = "PENDING" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELLED";

export interface TaskEvaluatorSettings {
  evaluator_id: string;
  /** Its name when attached (replies show it). */
  evaluator_name: string;
  /** null: not pinned (the latest version runs). */
  evaluator_version_id: string | null;
  query_filter: string | null;
  /** Span shape: template variable → column. */
  column_mappings: Record<string, string> | null;
  /** Trace/session shape, as the public API has it. */
  query_mappings: unknown[] | null;
}

/** What an update may change; an update event carries it whole. */
export interface TaskSettings {
  name: string;
  sampling_rate: number | null;
  is_continuous: boolean;
  query_filter: string | null;
  query_filters: Record<string, unknown> | null;
  evaluators: TaskEvaluatorSettings[];
}

export interface TaskCreated {
  type: "TaskCreated";
  data: TaskSettings & {
    id: string;
    account_id: string;
    space_id: string;
    task_type: TaskType;
    project_id: string | null;
    dataset_id: string | null;
    experiment_ids: string[];
    run_configuration: Record<string, unknown> | null;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface TaskUpdated {
  type: "TaskUpdated";
  data: TaskSettings & {
    id: string;
    space_id: string;
    /** A RUN_EXPERIMENT task's configuration, whole (absent in events before it could change). */
    run_configuration?: Record<string, unknown> | null;
    updated_at: string;
  };
}

export interface TaskDeleted {
  type: "TaskDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export type TaskEvent = TaskCreated | TaskUpdated | TaskDeleted;

export interface TaskRunCreated {
  type: "TaskRunCreated";
  data: {
    id: string;
    task_id: string;
    account_id: string;
    space_id: string;
    /** The trigger's options, as the worker needs them. */
    options: Record<string, unknown>;
    data_start_time: string | null;
    data_end_time: string | null;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface TaskRunStarted {
  type: "TaskRunStarted";
  data: {
    id: string;
    task_id: string;
    space_id: string;
    started_at: string;
    /** A RUN_EXPERIMENT run's experiment, made before the run starts (absent otherwise). */
    experiment_id?: string | null;
  };
}

/** COMPLETED, FAILED or CANCELLED (by a user, or by the run's own rule), with final counts. */
export interface TaskRunFinished {
  type: "TaskRunFinished";
  data: {
    id: string;
    task_id: string;
    space_id: string;
    status: "COMPLETED" | "FAILED" | "CANCELLED";
    num_successes: number;
    num_errors: number;
    num_skipped: number;
    experiment_id: string | null;
    failure_reason: string | null;
    /** Whether the task runs continuously (an online task): its failures are webhook events. */
    is_continuous: boolean;
    finished_at: string;
  };
}

export type TaskRunEvent = TaskRunCreated | TaskRunStarted | TaskRunFinished;

export type TaskRunnerEvent = TaskEvent | TaskRunEvent;
