import {
  DomainError,
  actorMetadata,
  isAccountAdmin,
  fetchSize,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateUserRequest,
  DeleteUserRequest,
  Done,
  GetUserRequest,
  ListUsersRequest,
  ListUsersResponse,
  ResendUserInvitationRequest,
  UpdateUserRequest,
  User,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { holdsAnywhere, requireAdmin } from "./access.ts";
import { commit } from "./commit.ts";
import {
  decideDeleteUser,
  decideInviteUser,
  decideResendInvitation,
  decideUpdateUser,
  userStatus,
  type AccountRoleName,
  type UserState,
} from "./domain/user.ts";

interface UserRow {
  id: string;
  name: string;
  email: string;
  created_at: Date;
  status: string;
  account_role: AccountRoleName;
  is_developer: boolean;
  invitation_expires_at: Date | null;
}

const COLUMNS =
  "id, name, email, created_at, status, account_role, is_developer, invitation_expires_at";

const toUser = (r: UserRow, now: Date): User => ({
  id: r.id,
  name: r.name,
  email: r.email,
  createdAt: r.created_at.toISOString(),
  status: userStatus(r.status, r.invitation_expires_at, now),
  accountRole: r.account_role,
  isDeveloper: r.is_developer,
});

const toState = (r: UserRow): UserState => ({
  id: r.id,
  name: r.name,
  isDeveloper: r.is_developer,
  status: r.status,
  invitationExpiresAt: r.invitation_expires_at,
});

/** Seeing users needs USER_READ (any space) or the admin role; one's own record is always visible. */
function mayRead(ctx: CallContext, userId: string): boolean {
  return holdsAnywhere(ctx.principal, "USER_READ") || ctx.principal.userId === userId;
}

export function userHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;

  async function load(ctx: CallContext, id: string): Promise<UserRow> {
    const res = await tracedQuery<UserRow>(
      pool,
      "get user",
      `select ${COLUMNS} from users where id = $1 and account_id = $2 and deleted_at is null`,
      [id, ctx.principal.accountId],
    );
    const row = res.rows[0];
    if (!row || !mayRead(ctx, row.id)) throw notFound("user");
    return row;
  }

  return {
    async listUsers(req: ListUsersRequest, ctx: CallContext): Promise<ListUsersResponse> {
      const p = ctx.principal;
      if (!holdsAnywhere(p, "USER_READ"))
        throw new DomainError(
          "access-forbidden",
          "listing users requires the account admin role or USER_READ",
        );
      const now = new Date();
      // Status is computed: INVITED while the invitation is valid, EXPIRED after.
      const res = await tracedQuery<UserRow>(
        pool,
        "list users",
        `select ${COLUMNS} from users
          where account_id = $1 and deleted_at is null
            and ($2::text is null or strpos(lower(email), lower($2)) > 0)
            and ($3::text[] is null or
                 (case when status = 'ACTIVE' then 'ACTIVE'
                       when invitation_expires_at > $4 then 'INVITED'
                       else 'EXPIRED' end) = any($3))
            and ($5::uuid is null or id < $5)
          order by id desc
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
      return toUser(await load(ctx, req.id), new Date());
    },

    async createUser(req: CreateUserRequest, ctx: CallContext): Promise<User> {
      const id = uuidv7();
      const now = new Date();
      const events = decideInviteUser({
        type: "InviteUser",
        id,
        accountId: ctx.principal.accountId,
        name: req.name,
        email: req.email,
        accountRole: req.accountRole as AccountRoleName,
        isDeveloper: req.isDeveloper,
        callerIsAdmin: holdsAnywhere(ctx.principal, "USER_CREATE"),
        now,
      });
      await commit(
        store,
        `user-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), user_id: id },
        {
          users_email_per_account: `a user with e-mail ${JSON.stringify(req.email)} already exists`,
        },
      );
      const d = events[0]!.data as Extract<
        (typeof events)[number],
        { type: "UserCreated" }
      >["data"];
      return {
        id,
        name: d.name,
        email: d.email,
        createdAt: d.created_at,
        status: "INVITED",
        accountRole: d.account_role,
        isDeveloper: d.is_developer,
      };
    },

    async updateUser(req: UpdateUserRequest, ctx: CallContext): Promise<User> {
      const row = await load(ctx, req.id);
      const now = new Date();
      const events = decideUpdateUser(
        {
          type: "UpdateUser",
          name: req.name,
          isDeveloper: req.isDeveloper,
          // is_developer is for the admin role itself, not for a permission (spec endpoint 11).
          callerIsAdmin: isAccountAdmin(ctx.principal),
          callerMayUpdateUsers: holdsAnywhere(ctx.principal, "USER_UPDATE"),
          now,
        },
        toState(row),
      );
      if (events.length > 0)
        await commit(store, `user-${row.id}`, "any", events, {
          ...actorMetadata(ctx),
          user_id: row.id,
        });
      return toUser(await load(ctx, req.id), now);
    },

    async deleteUser(req: DeleteUserRequest, ctx: CallContext): Promise<Done> {
      const row = await load(ctx, req.id);
      requireAdmin(ctx.principal, "deleting users");
      const events = decideDeleteUser(
        { type: "DeleteUser", callerUserId: ctx.principal.userId, now: new Date() },
        toState(row),
      );
      await commit(store, `user-${row.id}`, "any", events, {
        ...actorMetadata(ctx),
        user_id: row.id,
      });
      return {};
    },

    async resendUserInvitation(req: ResendUserInvitationRequest, ctx: CallContext): Promise<Done> {
      const row = await load(ctx, req.id);
      requireAdmin(ctx.principal, "resending invitations");
      const events = decideResendInvitation(
        { type: "ResendInvitation", now: new Date() },
        toState(row),
      );
      await commit(store, `user-${row.id}`, "any", events, {
        ...actorMetadata(ctx),
        user_id: row.id,
      });
      return {};
    },
  };
}
