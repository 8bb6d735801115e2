import { tracedQuery } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";

/** The catalog's deletions a run can depend on: its evaluators and the integrations they call. */
const DELETIONS = ["EvaluatorDeleted", "AiIntegrationDeleted", "IntegrationDeleted"];

/**
 * Records the ids of the catalog's deleted evaluators, AI integrations and integrations: the
 * run worker's watcher reads them and stops a run that uses one (its calls out aborted, its end
 * FAILED with the reason). Checked at runtime: the bus is not trusted to hold the contract.
 */
export function catalogDeletionsConsumer(o: { subjectRoot: string }): DurableConsumerOptions {
  return {
    durable: "tasks-catalog-deletions",
    filterSubject: `${o.subjectRoot}.catalog.>`,
    concurrency: 4,
    types: DELETIONS,
    handler: async (tx, event) => {
      const id = (event.data as { id?: unknown } | null)?.id;
      if (typeof id !== "string")
        throw new Error(`${event.type} ${event.eventId} does not have the contract's shape`);
      await tracedQuery(
        tx,
        "catalog deletion",
        "insert into catalog_deletions (id) values ($1) on conflict do nothing",
        [id],
      );
    },
  };
}
