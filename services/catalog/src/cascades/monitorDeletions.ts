import { aggregateSubjects } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";

const MONITOR_DELETIONS_CONSUMER = "catalog-monitor-deletions";

/**
 * A monitor is the tracing service's, its tags the catalog's: when the monitor goes (deleted,
 * or with its project or space), its tag attachments go too. Checked at runtime: the bus is
 * not trusted to hold the contract.
 */
export function monitorDeletionsConsumer(o: { subjectRoot: string }): DurableConsumerOptions {
  return {
    durable: MONITOR_DELETIONS_CONSUMER,
    filterSubject: aggregateSubjects(o.subjectRoot, "tracing", "monitor"),
    concurrency: 4,
    types: ["MonitorDeleted"],
    handler: async (tx, event) => {
      const id = (event.data as { id?: unknown } | null)?.id;
      if (typeof id !== "string")
        throw new Error(`MonitorDeleted ${event.eventId} does not have the contract's shape`);
      await tracedQuery(
        tx,
        "detach tags of deleted monitor",
        "delete from tag_attachments where resource_type = 'monitor' and resource_id = $1",
        [id],
      );
    },
  };
}
