import { commit as commitEvents, type EventStore } from "@argus/eventstore";
import type { PoolClient } from "pg";
import { project, type ProjectedEvent } from "./projection.ts";

/** Identity's commands: append and project with identity's projections (see eventstore `commit`). */
export function commit(
  store: EventStore,
  streamId: string,
  expectedVersion: number | "any",
  events: readonly ProjectedEvent[],
  metadata: Record<string, unknown>,
  conflicts: Record<string, string> = {},
  // Non-event state written in the same transaction (an invitation's token hash).
  alongside?: (client: PoolClient) => Promise<void>,
): Promise<void> {
  return commitEvents(store, {
    streamId,
    expectedVersion,
    events,
    metadata,
    project: async (client, evs) => {
      await project(client, evs);
      await alongside?.(client);
    },
    conflicts,
  });
}

export interface StreamAppend {
  streamId: string;
  expectedVersion: number | "any";
  events: readonly ProjectedEvent[];
  metadata: Record<string, unknown>;
}

/**
 * Several streams in ONE transaction: deleting an organization appends OrganizationDeleted
 * and every space's SpaceDeleted (each on its own stream, so each is published under the
 * space's subject) atomically.
 */
export async function commitAll(
  store: EventStore,
  appends: readonly StreamAppend[],
): Promise<void> {
  await store.transaction(async (tx) => {
    for (const a of appends) {
      await tx.append(
        a.streamId,
        a.expectedVersion,
        a.events.map((e) => ({ ...e, metadata: a.metadata })),
      );
      await project(tx.client, a.events);
    }
  });
}
