import { aggregateSubjects } from "@argus/contracts";
import { tracedQuery, type StoredEvent } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import { cascadeScope, type Cascade } from "@argus/spaces";
import { remember } from "../projects/tracingProjects.ts";
import type { SpanStore } from "../storage/spanStore.ts";
import { deleteProjectDependents } from "./monitorCascades.ts";

const field = (event: StoredEvent, key: string): string => {
  const v = ((event.data ?? {}) as Record<string, unknown>)[key];
  if (typeof v !== "string")
    throw new Error(`${event.type} ${event.eventId} does not have the contract's shape (${key})`);
  return v;
};

/**
 * The catalog's project events keep the copy; a deleted project's spans go with it, and so
 * do its monitors and the dashboard widgets charting it.
 */
export function projectsConsumer(o: {
  subjectRoot: string;
  store: SpanStore;
  cascade: Cascade;
}): DurableConsumerOptions {
  return {
    durable: "tracing-projects",
    filterSubject: aggregateSubjects(o.subjectRoot, "catalog", "project"),
    concurrency: 4,
    handler: async (tx, event) => {
      if (event.type === "ProjectCreated")
        await remember(tx, {
          id: field(event, "id"),
          account_id: field(event, "account_id"),
          space_id: field(event, "space_id"),
          name: field(event, "name"),
        });
      else if (event.type === "ProjectUpdated")
        await tracedQuery(tx, "project renamed", "update projects set name = $2 where id = $1", [
          field(event, "id"),
          field(event, "name"),
        ]);
      else if (event.type === "ProjectDeleted") {
        const id = field(event, "id");
        await o.store.dropProject(tx, id);
        await deleteProjectDependents(
          cascadeScope(tx, o.cascade),
          {
            id,
            accountId: String(event.metadata.account_id ?? ""),
            spaceId: field(event, "space_id"),
          },
          o.cascade.clock.now(),
          event,
        );
      }
    },
  };
}
