import { commit as commitEvents, type EventStore } from "@argus/eventstore";
import { project, type ProjectedEvent } from "./projection.ts";

/** Identity's commands: append and project with identity's projections (see eventstore `commit`). */
export function commit(
  store: EventStore,
  streamId: string,
  expectedVersion: number | "any",
  events: readonly ProjectedEvent[],
  metadata: Record<string, unknown>,
  conflicts: Record<string, string> = {},
): Promise<void> {
  return commitEvents(store, { streamId, expectedVersion, events, metadata, project, conflicts });
}
