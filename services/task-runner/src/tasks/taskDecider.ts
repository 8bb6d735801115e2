import type { Decider } from "@argus/eventstore";
import type {
  TaskCreated,
  TaskEvaluatorSettings,
  TaskEvent,
  TaskSettings,
  TaskType,
} from "@argus/contracts";
import { FilterError, parseFilter, parseQueryExpression } from "@argus/filter";
import { DomainError, type Lifecycle } from "@argus/platform";

export const invalid = (detail: string): DomainError => new DomainError("invalid-request", detail);
export const unprocessable = (detail: string): DomainError =>
  new DomainError("unprocessable-entity", detail);

const TASK_TYPES: readonly TaskType[] = [
  "TEMPLATE_EVALUATION",
  "CODE_EVALUATION",
  "RUN_EXPERIMENT",
];
export const isTaskType = (v: string): v is TaskType => (TASK_TYPES as string[]).includes(v);

/** What a task is about: a project's spans, or a dataset (its experiments, or a new one). */
export type Target =
  | { kind: "project"; projectId: string }
  | { kind: "dataset"; datasetId: string; experimentIds: string[] };

/** A trace/session task's named span filters and the expression that combines them. */
export interface QueryFilters {
  filters: { id: string; filter: string }[];
  expression?: string | null;
}

export interface NewTask {
  type: TaskType;
  target: Target;
  settings: TaskSettings;
  runConfiguration: Record<string, unknown> | null;
}

/**
 * The public API's rules of a task's shape, all of them pure (the places it names are checked
 * by the command, against their services):
 * - evaluation tasks have at least one evaluator, each at most once, all of one shape: span
 *   (column_mappings, query_filter; the task's query_filter) or trace/session (query_mappings;
 *   the task's query_filters, whose expression and mappings name only its filters), never both;
 * - sampling and continuity only on project tasks; experiments exactly on dataset tasks;
 * - RUN_EXPERIMENT: a dataset, no evaluators, no filters; run_configuration only there.
 */
export function checkTask(t: NewTask): NewTask {
  const s = t.settings;
  if (s.name.trim() === "") throw invalid("name must not be empty or whitespace-only");
  if (s.query_filter !== null && s.query_filters !== null)
    throw invalid("query_filter and query_filters are mutually exclusive");
  if (t.type === "RUN_EXPERIMENT") {
    if (t.target.kind !== "dataset") throw invalid("a RUN_EXPERIMENT task needs dataset_id");
    if (t.target.experimentIds.length > 0)
      throw invalid("experiment_ids are not valid on a RUN_EXPERIMENT task");
    if (s.evaluators.length > 0) throw invalid("a RUN_EXPERIMENT task has no evaluators");
    if (s.sampling_rate !== null || s.is_continuous)
      throw invalid("sampling_rate and is_continuous are only for project-based tasks");
    if (s.query_filter !== null || s.query_filters !== null)
      throw invalid("a RUN_EXPERIMENT task takes no query filters");
    return t;
  }
  if (t.runConfiguration !== null)
    throw invalid("run_configuration is only valid on a RUN_EXPERIMENT task");
  return { ...t, settings: checkSettings(t.target, s) };
}

/**
 * The rules an evaluation task's changeable settings keep, at creation and on every update;
 * the settings as kept (a lone filter's expression is its id, as the public API echoes it).
 */
function checkSettings(target: Target, s: TaskSettings): TaskSettings {
  if (s.name.trim() === "") throw invalid("name must not be empty or whitespace-only");
  if (s.query_filter !== null && s.query_filters !== null)
    throw invalid("query_filter and query_filters are mutually exclusive");
  if (target.kind === "dataset") {
    if (target.experimentIds.length === 0)
      throw invalid("a dataset-based task needs at least one experiment_id");
    if (s.sampling_rate !== null)
      throw invalid("sampling_rate is only supported on project-based tasks");
    if (s.is_continuous) throw invalid("is_continuous is only supported on project-based tasks");
  } else if (s.sampling_rate !== null && !(s.sampling_rate >= 0 && s.sampling_rate <= 1)) {
    throw invalid("sampling_rate must be between 0 and 1");
  }
  if (s.evaluators.length === 0) throw invalid("at least one evaluator is required");
  checkFilterSyntax("query_filter", s.query_filter);
  s.evaluators.forEach((e, i) =>
    checkFilterSyntax(`evaluators[${i}].query_filter`, e.query_filter),
  );
  const seen = new Set<string>();
  for (const e of s.evaluators) {
    if (seen.has(e.evaluator_id)) throw invalid("an evaluator may be attached only once");
    seen.add(e.evaluator_id);
  }
  const traceShaped = (e: TaskEvaluatorSettings) => e.query_mappings !== null;
  const shapes = new Set(s.evaluators.map(traceShaped));
  if (shapes.size > 1)
    throw invalid(
      "evaluators must all use the span shape (column_mappings) or all the trace/session shape (query_mappings)",
    );
  for (const e of s.evaluators)
    if (traceShaped(e) && (e.column_mappings !== null || e.query_filter !== null))
      throw invalid(
        "a trace/session evaluator takes query_mappings, not column_mappings or query_filter",
      );
  const trace = shapes.has(true);
  if (trace && s.query_filter !== null)
    throw invalid("trace/session evaluators use query_filters, not query_filter");
  if (!trace && s.query_filters !== null)
    throw invalid("span evaluators use query_filter, not query_filters");
  if (!trace) return s;
  const queryFilters = checkQueryFilters(s.query_filters as QueryFilters | null);
  const declared = (queryFilters?.filters ?? []).map((f) => f.id);
  for (const e of s.evaluators)
    for (const m of (e.query_mappings ?? []) as { variable_name: string; query_ids: string[] }[])
      for (const id of m.query_ids)
        if (!declared.includes(id))
          throw invalid(
            `query_mappings of ${m.variable_name}: ${id} is not declared in query_filters.filters`,
          );
  return { ...s, query_filters: queryFilters as Record<string, unknown> | null };
}

/**
 * A filter in the language of example and span searches, judged when it is written (400 at its
 * position) rather than when a run first uses it; which fields it names is the run's to judge,
 * against the spans or runs it reads.
 */
export function checkFilterSyntax(field: string, filter: string | null | undefined): void {
  if (filter === null || filter === undefined || filter.trim() === "") return;
  try {
    parseFilter(filter);
  } catch (err) {
    if (err instanceof FilterError) throw invalid(`${field}: ${err.message}`);
    throw err;
  }
}

/**
 * Named filters with unique ids, and an expression over them: optional with one filter (then
 * its id), required with more.
 */
function checkQueryFilters(q: QueryFilters | null): QueryFilters | null {
  if (q === null) return null;
  const ids = q.filters.map((f) => f.id);
  if (new Set(ids).size !== ids.length) throw invalid("query_filters ids must be unique");
  for (const f of q.filters) {
    if (f.filter.trim() === "") throw invalid(`query filter ${f.id} must not be empty`);
    checkFilterSyntax(`query_filters filter ${f.id}`, f.filter);
  }
  const expression = q.expression ?? (ids.length === 1 ? ids[0]! : null);
  if (expression === null)
    throw invalid("query_filters.expression is required with two or more filters");
  parseQueryExpression(expression, ids);
  return { filters: q.filters, expression };
}

export type TaskState = Lifecycle<{
  id: string;
  spaceId: string;
  type: TaskType;
  target: Target;
  settings: TaskSettings;
  runConfiguration: Record<string, unknown> | null;
}>;

export type TaskCommand =
  | {
      type: "CreateTask";
      id: string;
      accountId: string;
      spaceId: string;
      task: NewTask;
      userId: string;
      now: Date;
    }
  /** `runConfiguration` undefined leaves it (only a RUN_EXPERIMENT task has one). */
  | {
      type: "UpdateTask";
      changes: Partial<TaskSettings>;
      runConfiguration?: Record<string, unknown>;
      now: Date;
    }
  | { type: "DeleteTask"; now: Date };

const notFound = () => new DomainError("resource-not-found", "task not found");

function decide(command: TaskCommand, state: TaskState): TaskEvent[] {
  switch (command.type) {
    case "CreateTask": {
      if (state.status !== "none") throw new DomainError("resource-conflict", "task exists");
      const t = checkTask(command.task);
      const data: TaskCreated["data"] = {
        id: command.id,
        account_id: command.accountId,
        space_id: command.spaceId,
        task_type: t.type,
        project_id: t.target.kind === "project" ? t.target.projectId : null,
        dataset_id: t.target.kind === "dataset" ? t.target.datasetId : null,
        experiment_ids: t.target.kind === "dataset" ? t.target.experimentIds : [],
        run_configuration: t.runConfiguration,
        ...t.settings,
        created_by_user_id: command.userId,
        created_at: command.now.toISOString(),
      };
      return [{ type: "TaskCreated", data }];
    }
    case "UpdateTask": {
      if (state.status !== "live") throw notFound();
      const settings = { ...state.settings, ...command.changes };
      if (command.runConfiguration !== undefined && state.type !== "RUN_EXPERIMENT")
        throw invalid("only a RUN_EXPERIMENT task has a run_configuration");
      if (state.type === "RUN_EXPERIMENT") {
        const changed = Object.keys(command.changes).filter((k) => k !== "name");
        if (changed.length > 0)
          throw invalid(
            `a RUN_EXPERIMENT task's update takes only name (not ${changed.join(", ")})`,
          );
        if (settings.name.trim() === "") throw invalid("name must not be empty");
      }
      const kept =
        state.type === "RUN_EXPERIMENT" ? settings : checkSettings(state.target, settings);
      return [
        {
          type: "TaskUpdated",
          data: {
            id: state.id,
            space_id: state.spaceId,
            ...kept,
            run_configuration: command.runConfiguration ?? state.runConfiguration,
            updated_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "DeleteTask":
      if (state.status !== "live") throw notFound();
      return [
        {
          type: "TaskDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: command.now.toISOString() },
        },
      ];
  }
}

const settingsOf = (d: TaskSettings): TaskSettings => ({
  name: d.name,
  sampling_rate: d.sampling_rate,
  is_continuous: d.is_continuous,
  query_filter: d.query_filter,
  query_filters: d.query_filters,
  evaluators: d.evaluators,
});

function evolve(state: TaskState, event: TaskEvent): TaskState {
  switch (event.type) {
    case "TaskCreated": {
      const d = event.data;
      return {
        status: "live",
        id: d.id,
        spaceId: d.space_id,
        type: d.task_type,
        target: d.project_id
          ? { kind: "project", projectId: d.project_id }
          : { kind: "dataset", datasetId: d.dataset_id ?? "", experimentIds: d.experiment_ids },
        settings: settingsOf(d),
        runConfiguration: d.run_configuration,
      };
    }
    case "TaskUpdated":
      return state.status === "live"
        ? {
            ...state,
            settings: settingsOf(event.data),
            runConfiguration:
              event.data.run_configuration === undefined
                ? state.runConfiguration
                : event.data.run_configuration,
          }
        : state;
    case "TaskDeleted":
      return { status: "deleted" };
  }
}

export const taskDecider: Decider<TaskState, TaskCommand, TaskEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
