import type { DurableConsumerOptions } from "@argus/service-host";
import {
  cascadeScope,
  restrictionsConsumer,
  spaceEventsConsumer,
  type Cascade,
} from "@argus/spaces";
import { deleteDashboards, deleteMonitors } from "./monitorCascades.ts";

/**
 * Identity's space events keep the service's copy of the space facts (monitor and dashboard
 * lists apply the rules in SQL over it); a deleted space's dashboards and monitors go. (Its
 * projects' spans go when the catalog deletes the projects: `tracing-projects`.)
 */
export function spaceCascadeConsumer(o: {
  subjectRoot: string;
  cascade: Cascade;
}): DurableConsumerOptions {
  return spaceEventsConsumer({
    durable: "tracing-space-cascade",
    subjectRoot: o.subjectRoot,
    onSpaceDeleted: async (tx, deleted, event) => {
      const scope = cascadeScope(tx, o.cascade);
      const now = o.cascade.clock.now();
      await deleteMonitors(scope, { spaceId: deleted.data.id }, now, event);
      await deleteDashboards(scope, deleted.data.id, now, event);
    },
  });
}

/** Which projects are restricted: monitor lists leave them to their own bindings. */
export const tracingRestrictionsConsumer = (subjectRoot: string): DurableConsumerOptions =>
  restrictionsConsumer({ durable: "tracing-restrictions", subjectRoot });
