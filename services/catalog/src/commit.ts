import { ConcurrencyError, commit as commitEvents, type EventStore } from "@argus/eventstore";
import { DomainError } from "@argus/platform";
import { project, type ProjectedEvent } from "./projection.ts";

/**
 * The catalog's commands: append and project with the catalog's projections (see eventstore
 * `commit`; `conflicts` names the unique indexes and foreign keys whose violation is a 409).
 * A stream that moved on since the command read it (a concurrent update or delete) is a 409
 * the caller may retry, not a server error.
 */
export async function commit(
  store: EventStore,
  streamId: string,
  expectedVersion: number | "any",
  // Any event shape: decider events are interfaces, which lack an index signature.
  events: readonly { type: string; data: object }[],
  metadata: Record<string, unknown>,
  conflicts: Record<string, string> = {},
): Promise<void> {
  try {
    await commitEvents(store, {
      streamId,
      expectedVersion,
      events: events as readonly ProjectedEvent[],
      metadata,
      project,
      conflicts,
    });
  } catch (err) {
    if (err instanceof ConcurrencyError)
      throw new DomainError("resource-conflict", "the resource changed concurrently; retry");
    // A projection's foreign key firing is a domain rule too (e.g. a config in use by a queue).
    const e = err as { code?: string; constraint?: string };
    const detail = e?.code === "23503" && e.constraint ? conflicts[e.constraint] : undefined;
    if (detail) throw new DomainError("resource-conflict", detail);
    throw err;
  }
}
