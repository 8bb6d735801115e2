import type { Decider } from "@argus/eventstore";
import type {
  TaskRunCreated,
  TaskRunEvent,
  TaskRunFinished,
  TaskRunStatus,
} from "@argus/contracts";
import { DomainError } from "@argus/platform";

/*
 * A run's life (spec, "Task run"): PENDING → RUNNING → COMPLETED | FAILED | CANCELLED, and a
 * user's cancel from PENDING or RUNNING. The terminal states are final: a worker that finishes
 * a run cancelled meanwhile appends nothing.
 */
export type RunState =
  { status: "none" } | { status: TaskRunStatus; id: string; taskId: string; spaceId: string };

export interface Counts {
  num_successes: number;
  num_errors: number;
  num_skipped: number;
}

export type RunCommand =
  | { type: "CreateRun"; data: TaskRunCreated["data"] }
  | { type: "StartRun"; now: Date; experimentId?: string | null }
  | {
      type: "FinishRun";
      status: "COMPLETED" | "FAILED" | "CANCELLED";
      counts: Counts;
      experimentId: string | null;
      failureReason: string | null;
      isContinuous: boolean;
      now: Date;
    }
  | { type: "CancelRun"; counts: Counts; isContinuous: boolean; now: Date };

const isTerminal = (s: TaskRunStatus | "none"): boolean =>
  s === "COMPLETED" || s === "FAILED" || s === "CANCELLED";

function finished(
  state: Extract<RunState, { id: string }>,
  c: Omit<Extract<RunCommand, { type: "FinishRun" }>, "type">,
): TaskRunFinished {
  return {
    type: "TaskRunFinished",
    data: {
      id: state.id,
      task_id: state.taskId,
      space_id: state.spaceId,
      status: c.status,
      ...c.counts,
      experiment_id: c.experimentId,
      failure_reason: c.failureReason,
      is_continuous: c.isContinuous,
      finished_at: c.now.toISOString(),
    },
  };
}

function decide(command: RunCommand, state: RunState): TaskRunEvent[] {
  if (command.type === "CreateRun") {
    if (state.status !== "none") throw new DomainError("resource-conflict", "run exists");
    return [{ type: "TaskRunCreated", data: command.data }];
  }
  if (state.status === "none") throw new DomainError("resource-not-found", "task run not found");
  switch (command.type) {
    case "StartRun":
      return state.status === "PENDING"
        ? [
            {
              type: "TaskRunStarted",
              data: {
                id: state.id,
                task_id: state.taskId,
                space_id: state.spaceId,
                started_at: command.now.toISOString(),
                ...(command.experimentId ? { experiment_id: command.experimentId } : {}),
              },
            },
          ]
        : [];
    case "FinishRun":
      return isTerminal(state.status) ? [] : [finished(state, command)];
    case "CancelRun":
      if (isTerminal(state.status))
        throw new DomainError(
          "resource-conflict",
          `the run is ${state.status}: only PENDING or RUNNING runs can be cancelled`,
        );
      return [
        finished(state, {
          status: "CANCELLED",
          counts: command.counts,
          experimentId: null,
          failureReason: "cancelled by a user",
          isContinuous: command.isContinuous,
          now: command.now,
        }),
      ];
  }
}

function evolve(state: RunState, event: TaskRunEvent): RunState {
  switch (event.type) {
    case "TaskRunCreated":
      return {
        status: "PENDING",
        id: event.data.id,
        taskId: event.data.task_id,
        spaceId: event.data.space_id,
      };
    case "TaskRunStarted":
      return state.status === "none" ? state : { ...state, status: "RUNNING" };
    case "TaskRunFinished":
      return state.status === "none" ? state : { ...state, status: event.data.status };
  }
}

export const runDecider: Decider<RunState, RunCommand, TaskRunEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
