import { streamId } from "@argus/contracts";
import { commandScopeIn, tracedQuery } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import type { Clock } from "@argus/platform";
import { cascadeMetadata, spaceEventsConsumer } from "@argus/spaces";
import { project } from "../projection.ts";
import { taskDecider } from "../tasks/taskDecider.ts";

/** A deleted space's tasks go with it (and their runs); identity's space facts stay current. */
export function tasksSpaceCascade(o: {
  schema: string;
  subjectRoot: string;
  clock: Clock;
}): DurableConsumerOptions {
  return spaceEventsConsumer({
    durable: "tasks-space-cascade",
    subjectRoot: o.subjectRoot,
    onSpaceDeleted: async (tx, deleted, event) => {
      const res = await tracedQuery<{ id: string }>(
        tx,
        "tasks of deleted space",
        "select id from tasks where space_id = $1 order by id",
        [deleted.data.id],
      );
      const scope = commandScopeIn(tx, o.schema, project);
      for (const { id } of res.rows)
        await scope.decide(
          streamId("task", id),
          taskDecider,
          { type: "DeleteTask", now: o.clock.now() },
          cascadeMetadata(deleted, event),
        );
    },
  });
}
