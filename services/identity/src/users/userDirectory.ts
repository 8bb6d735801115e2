import { type CallContext, DomainError, isUuidAnyCase } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type { ResolveUsersRequest, ResolveUsersResponse } from "@argus/proto/identity/v1/directory";
import type { IdentityDeps } from "../deps.ts";
import { userStatus } from "./userRules.ts";
import { USER_FROM } from "./userRows.ts";

const MAX_PER_KIND = 100;

/** DirectoryService: lookups other services make on their own behalf (no caller's rights). */
export function directoryQueries({ pool, clock }: Pick<IdentityDeps, "pool" | "clock">) {
  return {
    /** Served to the catalog only (service.ts): it answers id, e-mail and status, no more. */
    async resolveUsers(req: ResolveUsersRequest, _ctx: CallContext): Promise<ResolveUsersResponse> {
      if (!isUuidAnyCase(req.accountId)) throw new DomainError("invalid-request", "account_id");
      if (req.emails.length > MAX_PER_KIND || req.ids.length > MAX_PER_KIND)
        throw new DomainError("invalid-request", `at most ${MAX_PER_KIND} e-mails and ids`);
      const emails = req.emails.map((e) => e.toLowerCase());
      // Ids are uuids in the table: anything else matches no user rather than failing the query.
      const ids = req.ids.filter(isUuidAnyCase);
      if (emails.length === 0 && ids.length === 0) return { users: [] };
      const res = await tracedQuery<{
        id: string;
        email: string;
        status: string;
        invitation_expires_at: Date | null;
      }>(
        pool,
        "resolve users",
        `select u.id, u.email, u.status, t.expires_at as invitation_expires_at from ${USER_FROM}
          where u.account_id = $1 and u.deleted_at is null
            and (lower(u.email) = any($2::text[]) or u.id = any($3::uuid[]))`,
        [req.accountId, emails, ids],
      );
      const now = clock.now();
      return {
        users: res.rows.map((r) => ({
          id: r.id,
          email: r.email,
          active: userStatus(r.status, r.invitation_expires_at, now) === "ACTIVE",
        })),
      };
    },
  };
}
