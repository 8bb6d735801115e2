import { DomainError } from "@argus/platform";
import type { EventStore } from "@argus/eventstore";
import { project } from "./projection.ts";
import { isUniqueViolation } from "./pgErrors.ts";

interface DomainEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Appends a command's events and updates the inline projections in one transaction. A
 * projection's unique index firing is the domain's uniqueness rule: it becomes a 409 with
 * the message given for that index, so a race yields a conflict, never a duplicate.
 */
export async function commit(
  store: EventStore,
  streamId: string,
  expectedVersion: number,
  events: readonly DomainEvent[],
  metadata: Record<string, unknown>,
  conflicts: Record<string, string> = {},
): Promise<void> {
  try {
    await store.transaction(async (tx) => {
      await tx.append(
        streamId,
        expectedVersion,
        events.map((e) => ({ ...e, metadata })),
      );
      await project(tx.client, events);
    });
  } catch (err) {
    for (const [constraint, message] of Object.entries(conflicts)) {
      if (isUniqueViolation(err, constraint)) throw new DomainError("resource-conflict", message);
    }
    throw err;
  }
}
