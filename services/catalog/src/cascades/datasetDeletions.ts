import { aggregateSubjects } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";

const DATASET_DELETIONS_CONSUMER = "catalog-dataset-deletions";

/**
 * A dataset is the dataset service's, its tags the catalog's: when the dataset goes, its tag
 * attachments go too (as a catalog resource's do in its own deletion projection). Checked at
 * runtime: the bus is not trusted to hold the contract.
 */
export function datasetDeletionsConsumer(o: { subjectRoot: string }): DurableConsumerOptions {
  return {
    durable: DATASET_DELETIONS_CONSUMER,
    filterSubject: aggregateSubjects(o.subjectRoot, "dataset", "dataset"),
    concurrency: 4,
    types: ["DatasetDeleted"],
    handler: async (tx, event) => {
      const id = (event.data as { id?: unknown } | null)?.id;
      if (typeof id !== "string")
        throw new Error(`DatasetDeleted ${event.eventId} does not have the contract's shape`);
      await tracedQuery(
        tx,
        "detach tags of deleted dataset",
        "delete from tag_attachments where resource_type = 'dataset' and resource_id = $1",
        [id],
      );
    },
  };
}
