import type { Projections } from "@argus/eventstore";
import type { UserEvent } from "@argus/contracts";
import { sql, steps } from "../shared/projectionSql.ts";

/** Users. The invitation token is not projected (never in an event): commands write it. */
export const userProjections: Projections<UserEvent> = {
  UserCreated: sql(
    "UserCreated",
    `insert into users (id, account_id, email, name, account_role, is_developer, status, created_at, invitation_expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    (d) => [
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
  UserUpdated: sql(
    "UserUpdated",
    "update users set name = coalesce($2, name), is_developer = coalesce($3, is_developer) where id = $1",
    (d) => [d.id, d.name ?? null, d.is_developer ?? null],
  ),
  // The user's row first: a binding or key created meanwhile share-locks it, so this waits for
  // it, and the bindings' delete then sees it. Nothing of the user's access survives.
  UserDeleted: steps(
    sql("UserDeleted", "update users set deleted_at = $2 where id = $1", (d) => [
      d.id,
      d.deleted_at,
    ]),
    sql(
      "UserDeleted bindings",
      "delete from role_bindings where subject_type = 'USER' and subject_id = $1",
      (d) => [d.id],
    ),
    sql("UserDeleted invitation", "delete from invitation_tokens where user_id = $1", (d) => [
      d.id,
    ]),
    sql("UserDeleted password", "delete from user_passwords where user_id = $1", (d) => [d.id]),
    sql("UserDeleted reset token", "delete from password_reset_tokens where user_id = $1", (d) => [
      d.id,
    ]),
  ),
  // Its token is written by the command, in the event's transaction: nothing to project.
  UserPasswordResetRequested: steps(),
  UserInvitationResent: sql(
    "UserInvitationResent",
    "update users set invitation_expires_at = $2 where id = $1",
    (d) => [d.id, d.invitation_expires_at],
  ),
  // A token works once: accepting consumes it.
  UserInvitationAccepted: steps(
    sql("UserInvitationAccepted token", "delete from invitation_tokens where user_id = $1", (d) => [
      d.id,
    ]),
    sql("UserInvitationAccepted", "update users set status = 'ACTIVE' where id = $1", (d) => [
      d.id,
    ]),
  ),
};
