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
  AcceptInvitationRequest,
  CreateUserRequest,
  CreateUserResponse,
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
import { findInvitation, newInvitationToken, storeInvitationToken } from "./invitationToken.ts";
import { project } from "./projection.ts";
import {
  decideAcceptInvitation,
  decideDeleteUser,
  decideInviteUser,
  decideResendInvitation,
  decideUpdateUser,
  revokeKeysOfDeletedUser,
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

// The invitation's expiry is its token's: no token (accepted, or never issued) is no invitation.
const COLUMNS =
  "u.id, u.name, u.email, u.created_at, u.status, u.account_role, u.is_developer, t.expires_at as invitation_expires_at";
const FROM = "users u left join invitation_tokens t on t.user_id = u.id";

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

export function userHandlers(deps: { pool: Pool; store: EventStore; pepper: string }) {
  const { pool, store, pepper } = deps;

  async function load(ctx: CallContext, id: string): Promise<UserRow> {
    const res = await tracedQuery<UserRow>(
      pool,
      "get user",
      `select ${COLUMNS} from ${FROM} where u.id = $1 and u.account_id = $2 and u.deleted_at is null`,
      [id, ctx.principal.accountId],
    );
    const row = res.rows[0];
    if (!row || !mayRead(ctx, row.id)) throw notFound("user");
    return row;
  }

  async function reinvite(
    row: UserRow,
    inviteMode: "NONE" | "EMAIL_LINK",
    ctx: CallContext,
    now: Date,
  ): Promise<CreateUserResponse> {
    requireAdmin(ctx.principal, "inviting users");
    const status = userStatus(row.status, row.invitation_expires_at, now);
    if (status === "ACTIVE" || inviteMode === "NONE")
      throw new DomainError(
        "resource-conflict",
        `a user with e-mail ${JSON.stringify(row.email)} already exists`,
      );
    if (status === "INVITED") return { user: toUser(row, now), created: false };
    const expiresAt = await renewInvitation(row, ctx, now);
    return { user: toUser({ ...row, invitation_expires_at: expiresAt }, now), created: true };
  }

  /** A new verification token with a new expiry; the old token stops working. */
  async function renewInvitation(row: UserRow, ctx: CallContext, now: Date): Promise<Date> {
    const events = decideResendInvitation({ type: "ResendInvitation", now }, toState(row));
    const d = events[0]!.data as { invitation_expires_at: string };
    await commit(
      store,
      `user-${row.id}`,
      "any",
      events,
      { ...actorMetadata(ctx), user_id: row.id },
      {},
      (client) =>
        storeInvitationToken(client, pepper, row.id, newInvitationToken(), d.invitation_expires_at),
    );
    return new Date(d.invitation_expires_at);
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
        `select ${COLUMNS} from ${FROM}
          where u.account_id = $1 and u.deleted_at is null
            and ($2::text is null or strpos(lower(u.email), lower($2)) > 0)
            and ($3::text[] is null or
                 (case when u.status = 'ACTIVE' then 'ACTIVE'
                       when t.expires_at > $4 then 'INVITED'
                       else 'EXPIRED' end) = any($3))
            and ($5::uuid is null or u.id < $5)
          order by u.id desc
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

    /**
     * As the public API: the e-mail is the idempotency key of an invitation. A still valid
     * invitation is returned as it is (200); an expired one is renewed (201); an active member
     * is a conflict. With invite_mode NONE the user is active at once.
     */
    async createUser(req: CreateUserRequest, ctx: CallContext): Promise<CreateUserResponse> {
      const now = new Date();
      const inviteMode = req.inviteMode === "NONE" ? "NONE" : "EMAIL_LINK";
      const found = await tracedQuery<UserRow>(
        pool,
        "find user by e-mail",
        `select ${COLUMNS} from ${FROM}
          where u.account_id = $1 and lower(u.email) = lower($2) and u.deleted_at is null`,
        [ctx.principal.accountId, req.email],
      );
      const existing = found.rows[0];
      if (existing) return reinvite(existing, inviteMode, ctx, now);
      const id = uuidv7();
      const events = decideInviteUser({
        type: "InviteUser",
        id,
        accountId: ctx.principal.accountId,
        name: req.name,
        email: req.email,
        accountRole: req.accountRole as AccountRoleName,
        isDeveloper: req.isDeveloper,
        inviteMode,
        callerIsAdmin: holdsAnywhere(ctx.principal, "USER_CREATE"),
        now,
      });
      const d = events[0]!.data as Extract<
        (typeof events)[number],
        { type: "UserCreated" }
      >["data"];
      const expiresAt = d.invitation_expires_at;
      await commit(
        store,
        `user-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), user_id: id },
        {
          users_email_per_account: `a user with e-mail ${JSON.stringify(req.email)} already exists`,
        },
        expiresAt === null
          ? undefined
          : (client) => storeInvitationToken(client, pepper, id, newInvitationToken(), expiresAt),
      );
      return {
        user: {
          id,
          name: d.name,
          email: d.email,
          createdAt: d.created_at,
          status: d.status,
          accountRole: d.account_role,
          isDeveloper: d.is_developer,
        },
        created: true,
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
      const now = new Date();
      const events = decideDeleteUser(
        { type: "DeleteUser", callerUserId: ctx.principal.userId, now },
        toState(row),
      );
      const metadata = { ...actorMetadata(ctx), user_id: row.id };
      // The user's keys are revoked as events in the deletion's transaction, so no listing or
      // consumer ever sees an ACTIVE key of a deleted user.
      await store.transaction(async (tx) => {
        const keys = await tracedQuery<{ id: string }>(
          tx.client,
          "active keys of user",
          `select id from api_keys
            where user_id = $1 and key_type = 'USER' and status = 'ACTIVE' order by id for update`,
          [row.id],
        );
        await tx.append(
          `user-${row.id}`,
          "any",
          events.map((e) => ({ ...e, metadata })),
        );
        await project(tx.client, events);
        for (const r of revokeKeysOfDeletedUser(
          keys.rows.map((k) => k.id),
          now,
        )) {
          await tx.append(r.streamId, "any", [{ ...r.event, metadata }]);
          await project(tx.client, [r.event]);
        }
      });
      return {};
    },

    async resendUserInvitation(req: ResendUserInvitationRequest, ctx: CallContext): Promise<Done> {
      const row = await load(ctx, req.id);
      requireAdmin(ctx.principal, "resending invitations");
      await renewInvitation(row, ctx, new Date());
      return {};
    },

    /** The caller is the gateway (nobody yet): the token alone identifies the invitee. */
    async acceptInvitation(req: AcceptInvitationRequest, ctx: CallContext): Promise<User> {
      if (!req.token) throw new DomainError("invalid-request", "token is required");
      const now = new Date();
      const userId = await store.transaction(async (tx) => {
        const inv = await findInvitation(tx.client, pepper, req.token);
        if (!inv) throw notFound("invitation");
        const res = await tracedQuery<UserRow>(
          tx.client,
          "get invited user",
          `select ${COLUMNS} from ${FROM} where u.id = $1 for update of u`,
          [inv.user_id],
        );
        const events = decideAcceptInvitation(
          { type: "AcceptInvitation", tokenExpiresAt: inv.expires_at, now },
          toState(res.rows[0]!),
        );
        const metadata = {
          ...actorMetadata(ctx),
          account_id: inv.account_id,
          actor_user_id: inv.user_id,
          user_id: inv.user_id,
        };
        await tx.append(
          `user-${inv.user_id}`,
          "any",
          events.map((e) => ({ ...e, metadata })),
        );
        await project(tx.client, events);
        return inv.user_id;
      });
      const after = await tracedQuery<UserRow>(
        pool,
        "get user",
        `select ${COLUMNS} from ${FROM} where u.id = $1`,
        [userId],
      );
      return toUser(after.rows[0]!, now);
    },
  };
}
