import { tracedQuery } from "@argus/eventstore";
import type { Projection } from "./projection.ts";

const q =
  (name: string, sql: string, values: (d: Record<string, unknown>) => unknown[]): Projection =>
  (client, d) =>
    tracedQuery(client, `project ${name}`, sql, values(d));

/** Projections of organizations, spaces, users, roles, bindings and restrictions after creation. */
export const accessProjections: Record<string, Projection> = {
  OrganizationUpdated: q(
    "OrganizationUpdated",
    "update organizations set name = $2, description = $3 where id = $1",
    (d) => [d.id, d.name, d.description],
  ),
  OrganizationDeleted: async (client, d) => {
    await tracedQuery(
      client,
      "project OrganizationDeleted bindings",
      "delete from role_bindings where resource_type = 'ORGANIZATION' and resource_id = $1",
      [d.id],
    );
    await tracedQuery(
      client,
      "project OrganizationDeleted",
      "delete from organizations where id = $1",
      [d.id],
    );
  },
  SpaceUpdated: q(
    "SpaceUpdated",
    "update spaces set name = $2, description = $3, is_private = $4 where id = $1",
    (d) => [d.id, d.name, d.description, d.is_private],
  ),
  SpaceDeleted: async (client, d) => {
    await tracedQuery(
      client,
      "project SpaceDeleted bindings",
      "delete from role_bindings where resource_type = 'SPACE' and resource_id = $1",
      [d.id],
    );
    await tracedQuery(client, "project SpaceDeleted", "delete from spaces where id = $1", [d.id]);
  },
  UserUpdated: q(
    "UserUpdated",
    "update users set name = coalesce($2, name), is_developer = coalesce($3, is_developer) where id = $1",
    (d) => [d.id, d.name ?? null, d.is_developer ?? null],
  ),
  UserDeleted: async (client, d) => {
    // Bindings go with the user, so nothing of its access survives the deletion.
    await tracedQuery(
      client,
      "project UserDeleted bindings",
      "delete from role_bindings where subject_type = 'USER' and subject_id = $1",
      [d.id],
    );
    await tracedQuery(
      client,
      "project UserDeleted invitation",
      "delete from invitation_tokens where user_id = $1",
      [d.id],
    );
    await tracedQuery(
      client,
      "project UserDeleted",
      "update users set deleted_at = $2 where id = $1",
      [d.id, d.deleted_at],
    );
  },
  UserInvitationResent: q(
    "UserInvitationResent",
    "update users set invitation_expires_at = $2 where id = $1",
    (d) => [d.id, d.invitation_expires_at],
  ),
  UserInvitationAccepted: async (client, d) => {
    // A token works once: accepting consumes it.
    await tracedQuery(
      client,
      "project UserInvitationAccepted token",
      "delete from invitation_tokens where user_id = $1",
      [d.id],
    );
    await tracedQuery(
      client,
      "project UserInvitationAccepted",
      "update users set status = 'ACTIVE' where id = $1",
      [d.id],
    );
  },
  RoleCreated: q(
    "RoleCreated",
    `insert into roles (id, account_id, name, description, permissions, is_predefined, created_at, updated_at)
       values ($1, $2, $3, $4, $5, false, $6, $6)`,
    (d) => [d.id, d.account_id, d.name, d.description, d.permissions, d.created_at],
  ),
  RoleUpdated: q(
    "RoleUpdated",
    "update roles set name = $2, description = $3, permissions = $4, updated_at = $5 where id = $1",
    (d) => [d.id, d.name, d.description, d.permissions, d.updated_at],
  ),
  RoleDeleted: q("RoleDeleted", "delete from roles where id = $1", (d) => [d.id]),
  RoleBindingCreated: q(
    "RoleBindingCreated",
    `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    (d) => [
      d.id,
      d.account_id,
      d.role_id,
      d.subject_type,
      d.subject_id,
      d.resource_type,
      d.resource_id,
      d.created_at,
    ],
  ),
  RoleBindingUpdated: q(
    "RoleBindingUpdated",
    "update role_bindings set role_id = $2, updated_at = $3 where id = $1",
    (d) => [d.id, d.role_id, d.updated_at],
  ),
  RoleBindingDeleted: q("RoleBindingDeleted", "delete from role_bindings where id = $1", (d) => [
    d.id,
  ]),
  ResourceRestrictionCreated: q(
    "ResourceRestrictionCreated",
    `insert into resource_restrictions (resource_id, account_id, resource_type, created_at)
       values ($1, $2, $3, $4)`,
    (d) => [d.resource_id, d.account_id, d.resource_type, d.created_at],
  ),
  ResourceRestrictionDeleted: q(
    "ResourceRestrictionDeleted",
    "delete from resource_restrictions where resource_id = $1",
    (d) => [d.resource_id],
  ),
};
