// Shared by every service that owns space-scoped resources: each follows identity's space
// events the same way, keeping its copy of the space facts and deleting what a deleted space
// held. Only what is deleted (the cascade) is the service's own.
import type { PoolClient } from "pg";
import {
  commandScopeIn,
  type CommandScope,
  type Project,
  type StoredEvent,
} from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import { aggregateSubjects, type SpaceDeleted } from "@argus/contracts";
import { DomainError, type Clock } from "@argus/platform";
import { projectSpaceFacts } from "./accessFacts.ts";

/** Identity's SpaceDeleted, checked at runtime: the bus is not trusted to hold the contract. */
export function spaceDeletedOf(event: StoredEvent): SpaceDeleted | undefined {
  if (event.type !== "SpaceDeleted") return undefined;
  const d = (event.data ?? {}) as Partial<Record<keyof SpaceDeleted["data"], unknown>>;
  const { id, account_id, organization_id, deleted_at } = d;
  if (
    typeof id !== "string" ||
    typeof account_id !== "string" ||
    typeof organization_id !== "string" ||
    typeof deleted_at !== "string"
  )
    throw new Error(`SpaceDeleted ${event.eventId} does not have the contract's shape`);
  return { type: "SpaceDeleted", data: { id, account_id, organization_id, deleted_at } };
}

/** The actor of what a space's deletion deletes in other services. */
export const CASCADE_ACTOR = "system:cascade";

/**
 * The metadata of every event a service appends because of another service's event (what a
 * deletion there deletes or changes here): the account, the space when what changes has one,
 * the cascade as actor and that event as the cause.
 */
export const causedBy = (cause: StoredEvent, accountId: string, spaceId?: string) => ({
  account_id: accountId,
  ...(spaceId === undefined ? {} : { space_id: spaceId }),
  actor: CASCADE_ACTOR,
  cause_event_id: cause.eventId,
  cause_event_type: cause.type,
});

/** The metadata of every event a service appends because a space was deleted. */
export const cascadeMetadata = (deleted: SpaceDeleted, cause: StoredEvent) =>
  causedBy(cause, deleted.data.account_id, deleted.data.id);

/** Where a consumer decides on the service's own streams (its schema and projection), and when. */
export interface Cascade {
  schema: string;
  project: Project;
  clock: Clock;
}

/** A cascade's command scope, in the transaction of the consumer's processed-event marker. */
export const cascadeScope = (tx: PoolClient, c: Cascade): CommandScope =>
  commandScopeIn(tx, c.schema, c.project);

/**
 * What a service deletes when a space is: called with the checked SpaceDeleted and the stored
 * event it came in (its id and type are the cascade's cause), in the transaction of the
 * runner's processed-event marker, after `space_facts` has dropped the space.
 */
export type OnSpaceDeleted = (
  tx: PoolClient,
  deleted: SpaceDeleted,
  event: StoredEvent,
) => Promise<void>;

/**
 * The durable consumer of identity's space events (`<root>.identity.space.>`; nats-server 2.9
 * takes one filter subject, so it gets every space event): each keeps `space_facts`
 * (`projectSpaceFacts`), and a SpaceDeleted (shape-checked, `spaceDeletedOf`; a malformed one
 * fails, so its delivery ends in the dead-letter record) also runs `onSpaceDeleted`, in the
 * same transaction. `durable` is the service's own name for it, as the service registry
 * declares it (the catalog's is "catalog-space-cascade").
 */
export function spaceEventsConsumer(o: {
  durable: string;
  subjectRoot: string;
  onSpaceDeleted: OnSpaceDeleted;
  concurrency?: number;
}): DurableConsumerOptions {
  return {
    durable: o.durable,
    filterSubject: aggregateSubjects(o.subjectRoot, "identity", "space"),
    concurrency: o.concurrency ?? 4,
    handler: async (tx, event) => {
      await projectSpaceFacts(tx, event);
      const deleted = spaceDeletedOf(event);
      if (deleted) await o.onSpaceDeleted(tx, deleted, event);
    },
  };
}

/**
 * One step of a space's cascade on one resource: a resource already gone (a 404: deleted
 * meanwhile by its owner, or by an earlier delivery) is what the step wanted; any other failure
 * fails the delivery, whose transaction then leaves nothing behind.
 */
export async function unlessGone(step: Promise<unknown>): Promise<void> {
  try {
    await step;
  } catch (err) {
    if (!(err instanceof DomainError && err.type === "resource-not-found")) throw err;
  }
}
