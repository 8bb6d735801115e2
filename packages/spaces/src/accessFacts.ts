// Shared by every service that owns space-scoped resources: each keeps its own copy of
// identity's access facts (`space_facts`, `restricted_projects`; sql/access_facts.sql) so its
// lists can apply the rules in SQL, fed from identity's events the same way in every service.
import type { PoolClient } from "pg";
import { tracedQuery, type StoredEvent } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import { aggregateSubjects } from "@argus/contracts";

// Identity's events, checked at runtime: the bus is not trusted to hold the contract.
const fields = (event: StoredEvent) => (event.data ?? {}) as Record<string, unknown>;
const text = (event: StoredEvent, d: Record<string, unknown>, key: string): string => {
  const v = d[key];
  if (typeof v !== "string")
    throw new Error(`${event.type} ${event.eventId} does not have the contract's shape (${key})`);
  return v;
};
const flag = (event: StoredEvent, d: Record<string, unknown>, key: string): boolean => {
  const v = d[key];
  if (typeof v !== "boolean")
    throw new Error(`${event.type} ${event.eventId} does not have the contract's shape (${key})`);
  return v;
};

/**
 * The service's copy of each space's organization and private flag (`space_facts` in its own
 * schema, through the transaction's search_path), which lists read to apply the rules in SQL;
 * from identity's space events, in stream order. Other event types are ignored.
 */
export async function projectSpaceFacts(tx: PoolClient, event: StoredEvent): Promise<void> {
  const d = fields(event);
  if (event.type === "SpaceCreated")
    await tracedQuery(
      tx,
      "space facts created",
      `insert into space_facts (id, account_id, organization_id, is_private) values ($1, $2, $3, $4)
       on conflict (id) do update set organization_id = excluded.organization_id,
                                      is_private = excluded.is_private`,
      [
        text(event, d, "id"),
        text(event, d, "account_id"),
        text(event, d, "organization_id"),
        flag(event, d, "is_private"),
      ],
    );
  else if (event.type === "SpaceUpdated")
    await tracedQuery(
      tx,
      "space facts updated",
      "update space_facts set is_private = $2 where id = $1",
      [text(event, d, "id"), flag(event, d, "is_private")],
    );
  else if (event.type === "SpaceDeleted")
    await tracedQuery(tx, "space facts deleted", "delete from space_facts where id = $1", [
      text(event, d, "id"),
    ]);
}

/**
 * Which projects are restricted, for project lists (`restricted_projects`); from identity's
 * restriction events. `durable` is the service's own consumer name, as the service registry
 * declares it (the catalog's is "catalog-restrictions").
 */
export function restrictionsConsumer(o: {
  durable: string;
  subjectRoot: string;
  concurrency?: number;
}): DurableConsumerOptions {
  return {
    durable: o.durable,
    filterSubject: aggregateSubjects(o.subjectRoot, "identity", "restriction"),
    concurrency: o.concurrency ?? 4,
    handler: async (tx, event) => {
      const d = fields(event);
      if (event.type === "ResourceRestrictionCreated" && d.resource_type === "PROJECT")
        await tracedQuery(
          tx,
          "project restricted",
          `insert into restricted_projects (project_id, account_id) values ($1, $2)
           on conflict (project_id) do nothing`,
          [text(event, d, "resource_id"), text(event, d, "account_id")],
        );
      else if (event.type === "ResourceRestrictionDeleted")
        await tracedQuery(
          tx,
          "project unrestricted",
          "delete from restricted_projects where project_id = $1",
          [text(event, d, "resource_id")],
        );
    },
  };
}
