import type { PoolClient } from "pg";
import { DomainError } from "@argus/platform";
import type { EventStore } from "./streams/eventStore.ts";

import type { DomainEvent } from "./commands/decider.ts";

export interface CommitOptions<E extends DomainEvent> {
  streamId: string;
  /** 0 for a new stream; the version the command's decision was made on otherwise. */
  expectedVersion: number | "any";
  events: readonly E[];
  metadata: Record<string, unknown>;
  /** The service's inline projections, run in the same transaction as the append. */
  project: (client: PoolClient, events: readonly E[]) => Promise<void>;
  /** Unique index or constraint name → the 409 detail when it fires. */
  conflicts?: Record<string, string>;
}

/**
 * Appends a command's events and updates the inline projections in one transaction. A
 * projection's unique index firing is a uniqueness rule of the domain: it becomes a 409 with
 * the detail given for that index, so a race yields a conflict, never a duplicate.
 */
export async function commit<E extends DomainEvent>(
  store: EventStore,
  o: CommitOptions<E>,
): Promise<void> {
  try {
    await store.transaction(async (tx) => {
      await tx.append(
        o.streamId,
        o.expectedVersion,
        o.events.map((e) => ({ ...e, metadata: o.metadata })),
      );
      await o.project(tx.client, o.events);
    });
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    const detail = e?.code === "23505" && e.constraint ? o.conflicts?.[e.constraint] : undefined;
    if (detail) throw new DomainError("resource-conflict", detail);
    throw err;
  }
}
