import { streamId, type TaskRunCreated } from "@argus/contracts";
import {
  tracedQuery,
  type CommandHandler,
  type CommandOptions,
  type EventMetadata,
} from "@argus/eventstore";
import { runDecider } from "./taskRunDecider.ts";

/** Postgres channel a triggered run is announced on, so an idle worker starts at once. */
export const RUNS_CHANNEL = "argus_task_runs";

/** A PENDING run, announced to the workers on commit (a user's trigger, or a chained task's). */
export async function createRun(
  commands: CommandHandler,
  data: TaskRunCreated["data"],
  metadata: EventMetadata,
  options?: CommandOptions,
): Promise<void> {
  await commands.transact(async (scope) => {
    await scope.decide(
      streamId("task_run", data.id),
      runDecider,
      { type: "CreateRun", data },
      metadata,
    );
    await tracedQuery(scope.client, "announce run", "select pg_notify($1, '')", [RUNS_CHANNEL]);
  }, options);
}
