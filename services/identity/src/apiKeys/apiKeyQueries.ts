import {
  DomainError,
  canSeeSpace,
  fetchSize,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  pageOf,
  spaceRuleSql,
  type CallContext,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type { ListApiKeysRequest, ListApiKeysResponse } from "@argus/proto/identity/v1/api_keys";
import type { Pool } from "pg";
import { KEY_COLUMNS, toApiKey, type KeyRow } from "./apiKeyRows.ts";
import { adminSpaces } from "./apiKeyReads.ts";
import { botUsersOf } from "./botUsers.ts";
import { spaceFacts } from "../spaces/spaceRows.ts";
import { findSpace } from "../spaces/spaceAccess.ts";

const NOBODY = "00000000-0000-0000-0000-000000000000";

export function apiKeyQueries({ pool }: { pool: Pool }) {
  /** The SERVICE keys of a space are listed by its admins and holders of SERVICE_KEY_READ. */
  async function requireSpaceKeysReadable(ctx: CallContext, spaceId: string): Promise<void> {
    const p = ctx.principal;
    const s = await findSpace(pool, ctx, spaceId);
    if (!s || !canSeeSpace(p, spaceFacts(s))) throw notFound("space");
    const isSpaceAdmin = (await adminSpaces(pool, p, [spaceId])).has(spaceId);
    if (!isSpaceAdmin && !hasSpacePermission(p, spaceFacts(s), "SERVICE_KEY_READ"))
      throw new DomainError(
        "access-forbidden",
        "missing permission SERVICE_KEY_READ in this space",
      );
  }

  return {
    async listApiKeys(req: ListApiKeysRequest, ctx: CallContext): Promise<ListApiKeysResponse> {
      const p = ctx.principal;
      const status = req.status || "ACTIVE";
      // With a space, service keys are meant (spec endpoint 3, rule 1); without, USER keys.
      const keyType = req.keyType || (req.spaceId ? "SERVICE" : "USER");
      if (keyType === "USER" && req.spaceId)
        throw new DomainError(
          "invalid-request",
          "space_id filters SERVICE keys; USER keys have no space",
        );
      let creator: string | null = req.userId || null;
      let spaces: string[] | null = null; // SERVICE keys: bound to one of these spaces
      if (req.spaceId) {
        await requireSpaceKeysReadable(ctx, req.spaceId);
        spaces = [req.spaceId];
      } else if (keyType === "USER") {
        // Another user's keys are for account admins only (rule 3); by default one's own.
        if (creator && creator !== p.userId && !isAccountAdmin(p))
          throw new DomainError(
            "access-forbidden",
            "only account admins may list another user's keys",
          );
        creator ??= p.userId || NOBODY;
      }
      // Without a space: SERVICE keys of every space where the caller may read them.
      const byRule = keyType === "SERVICE" && !req.spaceId && !isAccountAdmin(p);
      const readable = spaceRuleSql(p, "SERVICE_KEY_READ", "s", 9);
      const res = await tracedQuery<KeyRow>(
        pool,
        "list api keys",
        `select ${KEY_COLUMNS} from api_keys k
          where k.account_id = $1 and k.key_type = $2 and k.status = $3
            and ($4::uuid is null or k.created_by_user_id = $4)
            and ($5::uuid[] is null or exists (
                  select 1 from role_bindings rb
                   where rb.subject_type = 'SERVICE_ACCOUNT' and rb.subject_id = k.service_account_id
                     and rb.resource_type = 'SPACE' and rb.resource_id = any($5::uuid[])))
            and ($6::uuid is null or k.id < $6)
            and (not $8::boolean or exists (
                  select 1 from role_bindings rb join spaces s on s.id = rb.resource_id
                   where rb.subject_type = 'SERVICE_ACCOUNT' and rb.subject_id = k.service_account_id
                     and rb.resource_type = 'SPACE' and ${readable.sql}))
          order by k.id desc
          limit $7`,
        [
          p.accountId,
          keyType,
          status,
          creator,
          spaces,
          req.page?.after || null,
          fetchSize(req.page),
          byRule,
          ...readable.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      // Each SERVICE key carries its bot user; a list scoped to a space shows none of its
      // bindings (the public API: they may be in spaces the caller cannot read).
      const bots = await botUsersOf(
        pool,
        p,
        items.flatMap((r) => (r.service_account_id ? [r.service_account_id] : [])),
        !req.spaceId,
      );
      return {
        apiKeys: items.map((r) => ({
          ...toApiKey(r),
          ...(r.service_account_id ? { botUser: bots.get(r.service_account_id)! } : {}),
        })),
        page: { nextAfter },
      };
    },
  };
}
