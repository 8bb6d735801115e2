import {
  DomainError,
  fetchSize,
  holdsAnywhere,
  notFound,
  pageOf,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type {
  GetUserRequest,
  ListUsersRequest,
  ListUsersResponse,
  User,
} from "@argus/proto/identity/v1";
import type { IdentityDeps } from "../deps.ts";
import { USER_COLUMNS, USER_FROM, toUser, type UserRow } from "./userRows.ts";

/** A user of the account by id (deleted ones too, when `deleted`), or undefined. */
export async function findUser(
  db: Queryable,
  accountId: string,
  id: string,
  deleted = false,
): Promise<UserRow | undefined> {
  const res = await tracedQuery<UserRow>(
    db,
    "get user",
    `select ${USER_COLUMNS} from ${USER_FROM}
      where u.id = $1 and u.account_id = $2 and ($3 or u.deleted_at is null)`,
    [id, accountId, deleted],
  );
  return res.rows[0];
}

/**
 * The live user of the account with this e-mail (case-insensitive), if any; with `deleted`, a
 * deleted one instead.
 */
export async function findUserByEmail(
  db: Queryable,
  accountId: string,
  email: string,
  o: { deleted?: boolean } = {},
): Promise<UserRow | undefined> {
  const res = await tracedQuery<UserRow>(
    db,
    "find user by e-mail",
    `select ${USER_COLUMNS} from ${USER_FROM}
      where u.account_id = $1 and lower(u.email) = lower($2)
        and (u.deleted_at is not null) = $3
      limit 1`,
    [accountId, email, o.deleted ?? false],
  );
  return res.rows[0];
}

/** Seeing users needs USER_READ (any space) or the admin role; one's own record is always visible. */
export async function loadReadableUser(
  db: Queryable,
  ctx: CallContext,
  id: string,
  o: { deleted?: boolean } = {},
): Promise<UserRow> {
  const row = await findUser(db, ctx.principal.accountId, id, o.deleted);
  const p = ctx.principal;
  if (!row || !(holdsAnywhere(p, "USER_READ") || p.userId === row.id)) throw notFound("user");
  return row;
}

export function userQueries({ pool, clock }: Pick<IdentityDeps, "pool" | "clock">) {
  return {
    async listUsers(req: ListUsersRequest, ctx: CallContext): Promise<ListUsersResponse> {
      const p = ctx.principal;
      if (!holdsAnywhere(p, "USER_READ"))
        throw new DomainError(
          "access-forbidden",
          "listing users requires the account admin role or USER_READ",
        );
      const now = clock.now();
      // Status is computed: INVITED while the invitation is valid, EXPIRED after. Oldest
      // first, as the public API lists users (ids are uuid v7: creation order).
      const res = await tracedQuery<UserRow>(
        pool,
        "list users",
        `select ${USER_COLUMNS} from ${USER_FROM}
          where u.account_id = $1 and u.deleted_at is null
            and ($2::text is null or strpos(lower(u.email), lower($2)) > 0)
            and ($3::text[] is null or
                 (case when u.status = 'ACTIVE' then 'ACTIVE'
                       when t.expires_at > $4 then 'INVITED'
                       else 'EXPIRED' end) = any($3))
            and ($5::uuid is null or u.id > $5)
          order by u.id
          limit $6`,
        [
          p.accountId,
          req.email || null,
          req.statuses.length > 0 ? req.statuses : null,
          now,
          req.page?.after || null,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { users: items.map((r) => toUser(r, now)), page: { nextAfter } };
    },

    async getUser(req: GetUserRequest, ctx: CallContext): Promise<User> {
      return toUser(await loadReadableUser(pool, ctx, req.id), clock.now());
    },
  };
}
