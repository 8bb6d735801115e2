import { fetchSize, pageOf, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  ListResourceRestrictionsRequest,
  ListResourceRestrictionsResponse,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";

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
      const res = await tracedQuery<Row>(
        pool,
        "list resource restrictions",
        `select resource_id, resource_type, created_at from resource_restrictions
          where account_id = $1 and ($2::uuid is null or resource_id < $2)
            and ($4::text is null or resource_type = $4)
          order by resource_id desc limit $3`,
        [
          ctx.principal.accountId,
          req.page?.after || null,
          fetchSize(req.page),
          req.resourceType || null,
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
