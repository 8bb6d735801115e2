import type { PoolClient } from "pg";
import { streamId, type SpaceDeleted } from "@argus/contracts";
import { commandScopeIn, tracedQuery, type StoredEvent } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import type { Clock } from "@argus/platform";
import { cascadeMetadata, spaceEventsConsumer, unlessGone } from "@argus/spaces";
import { deleteDatasetIn } from "../datasets/datasetCommands.ts";
import { experimentDecider } from "../experiments/experimentDecider.ts";
import { experimentIdsOf } from "../experiments/experimentRows.ts";
import { project } from "../projection.ts";

const SPACE_CASCADE_CONSUMER = "dataset-space-cascade";

/**
 * Deleting a space deletes its datasets and experiments, each by its own decider in the transaction of the
 * consumer's processed-event marker (a redelivery is skipped; a failure leaves nothing);
 * identity's space events also keep `space_facts` for lists.
 */
export function datasetSpaceCascade(o: {
  schema: string;
  subjectRoot: string;
  clock: Clock;
}): DurableConsumerOptions {
  return spaceEventsConsumer({
    durable: SPACE_CASCADE_CONSUMER,
    subjectRoot: o.subjectRoot,
    onSpaceDeleted: (tx, deleted, event) =>
      deleteDatasetsOf(tx, o.schema, deleted, event, o.clock.now()),
  });
}

async function deleteDatasetsOf(
  tx: PoolClient,
  schema: string,
  deleted: SpaceDeleted,
  cause: StoredEvent,
  now: Date,
): Promise<void> {
  const spaceId = deleted.data.id;
  const scope = commandScopeIn(tx, schema, project);
  const metadata = cascadeMetadata(deleted, cause);
  const { rows } = await tracedQuery<{ id: string }>(
    tx,
    "cascade datasets",
    "select id from datasets where space_id = $1 order by id",
    [spaceId],
  );
  // Each dataset with its experiments, then the experiments without a dataset.
  for (const { id } of rows) await unlessGone(deleteDatasetIn(scope, id, metadata, now));
  for (const id of await experimentIdsOf(tx, "space_id", spaceId))
    await unlessGone(
      scope.decide(
        streamId("experiment", id),
        experimentDecider,
        { type: "DeleteExperiment", now },
        metadata,
      ),
    );
}
