import { fetchSize, pageOf, spaceRuleSql, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  ListResourceRestrictionsRequest,
  ListResourceRestrictionsResponse,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { RESTRICT_PERMISSION, RESTRICTION_TYPES } from "./restrictionDecider.ts";

interface Row {
  resource_id: string;
  resource_type: string;
  created_at: Date;
}

export function restrictionQueries({ pool }: { pool: Pool }) {
  return {
    async listResourceRestrictions(
      req: ListResourceRestrictionsRequest,
      ctx: CallContext,
    ): Promise<ListResourceRestrictionsResponse> {
      // The restrictions the caller may manage (lift): an account admin, every one; anyone else,
      // those of a space where it holds the type's *_RESTRICT permission (by the rule of README
      // "Roles and permissions", over identity's own spaces). One kept without a space is an
      // account admin's alone. The text is one of two (admin or not): its parameters vary.
      const rules = RESTRICTION_TYPES.map((type, i) => ({
        type,
        rule: spaceRuleSql(ctx.principal, RESTRICT_PERMISSION[type], "s", 5 + i * 3, {
          spaceId: "r.space_id",
          factsTable: "spaces",
        }),
      }));
      const manageable = rules.every((r) => r.rule.sql === "true")
        ? "true"
        : rules.map((r) => `(r.resource_type = '${r.type}' and ${r.rule.sql})`).join(" or ");
      const res = await tracedQuery<Row>(
        pool,
        "list resource restrictions",
        `select r.resource_id, r.resource_type, r.created_at from resource_restrictions r
          where r.account_id = $1 and ($2::uuid is null or r.resource_id < $2)
            and ($4::text is null or r.resource_type = $4)
            and (${manageable})
          order by r.resource_id desc limit $3`,
        [
          ctx.principal.accountId,
          req.page?.after || null,
          fetchSize(req.page),
          req.resourceType || null,
          ...rules.flatMap((r) => r.rule.params),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.resource_id);
      return {
        resourceRestrictions: items.map((r) => ({
          resourceType: r.resource_type,
          resourceId: r.resource_id,
          createdAt: r.created_at.toISOString(),
        })),
        page: { nextAfter },
      };
    },
  };
}
