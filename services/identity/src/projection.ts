import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { accessProjections } from "./accessProjection.ts";
import { apiKeyProjections } from "./apiKeysProjection.ts";

export interface ProjectedEvent {
  type: string;
  data: Record<string, unknown>;
}

export type Projection = (client: PoolClient, data: Record<string, unknown>) => Promise<unknown>;

/** Accounts, organizations, spaces, users and keys as headless initialization creates them. */
const core: Record<string, Projection> = {
  AccountCreated: (client, d) =>
    tracedQuery(
      client,
      "project AccountCreated",
      "insert into accounts (id, name, created_at) values ($1, $2, $3)",
      [d.id, d.name, d.created_at],
    ),
  OrganizationCreated: (client, d) =>
    tracedQuery(
      client,
      "project OrganizationCreated",
      "insert into organizations (id, account_id, name, description, created_at) values ($1, $2, $3, $4, $5)",
      [d.id, d.account_id, d.name, d.description, d.created_at],
    ),
  SpaceCreated: (client, d) =>
    tracedQuery(
      client,
      "project SpaceCreated",
      `insert into spaces (id, account_id, organization_id, name, description, is_private, created_at)
           values ($1, $2, $3, $4, $5, $6, $7)`,
      [d.id, d.account_id, d.organization_id, d.name, d.description, d.is_private, d.created_at],
    ),
  UserCreated: (client, d) =>
    tracedQuery(
      client,
      "project UserCreated",
      `insert into users (id, account_id, email, name, account_role, is_developer, status, created_at, invitation_expires_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        d.id,
        d.account_id,
        d.email,
        d.name,
        d.account_role,
        d.is_developer,
        d.status,
        d.created_at,
        d.invitation_expires_at ?? null,
      ],
    ),
  ApiKeyCreated: (client, d) =>
    tracedQuery(
      client,
      "project ApiKeyCreated",
      `insert into api_keys (id, account_id, key_type, user_id, created_by_user_id, name, description, redacted_key, status, created_at, expires_at, service_account_id)
           values ($1, $2, $3, $4, $5, $6, $7, $8, 'ACTIVE', $9, $10, $11)`,
      [
        d.id,
        d.account_id,
        d.key_type,
        d.user_id,
        d.created_by_user_id,
        d.name,
        d.description,
        d.redacted_key,
        d.created_at,
        d.expires_at,
        d.service_account_id ?? null,
      ],
    ),
};

// Each area of identity contributes the projections of its own events here.
const projections: Record<string, Projection> = {
  ...core,
  ...accessProjections,
  ...apiKeyProjections,
};

/** Identity's inline projections, written in the same transaction as the events. */
export async function project(
  client: PoolClient,
  events: readonly { type: string; data: object }[],
): Promise<void> {
  for (const { type, data } of events as readonly ProjectedEvent[]) {
    const apply = projections[type];
    if (!apply) throw new Error(`identity projection does not know event ${type}`);
    await apply(client, data);
  }
}
