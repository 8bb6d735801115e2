import { projector } from "@argus/eventstore";
import type { TaskRunnerEvent } from "@argus/contracts";
import { taskRunProjections } from "./taskRuns/taskRunProjection.ts";
import { taskProjections } from "./tasks/taskProjection.ts";

/** The task runner's inline projections: tasks and their runs. */
export const project = projector<TaskRunnerEvent>("task-runner", {
  ...taskProjections,
  ...taskRunProjections,
});
