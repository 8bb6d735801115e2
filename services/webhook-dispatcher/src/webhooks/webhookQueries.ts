import { tracedQuery } from "@argus/eventstore";
import {
  fetchSize,
  newestAfter,
  newestKeyOf,
  notFound,
  pageOf,
  type CallContext,
} from "@argus/platform";
import type {
  GetWebhookRequest,
  ListDeliveryAttemptsRequest,
  ListDeliveryAttemptsResponse,
  ListWebhooksRequest,
  ListWebhooksResponse,
  Webhook,
} from "@argus/proto/webhooks/v1/webhooks";
import { isUuid } from "@argus/spaces";
import { readableOrganizations, readsOrganization } from "./webhookAccess.ts";
import type { WebhooksDeps } from "../deps.ts";
import {
  WEBHOOK_COLUMNS,
  managedWebhook,
  toWebhook,
  webhookRow,
  type WebhookRow,
} from "./webhookRows.ts";

/** Delivery attempts list up to 500 a page (the public API's limit). */
const ATTEMPTS_PAGE_MAX = 500;

export function webhookQueries(deps: WebhooksDeps) {
  const { pool, spaces } = deps;
  return {
    async listWebhooks(req: ListWebhooksRequest, ctx: CallContext): Promise<ListWebhooksResponse> {
      const p = ctx.principal;
      let organizations = readableOrganizations(p);
      if (req.organizationId) {
        if (
          !isUuid(req.organizationId) ||
          !readsOrganization(p, req.organizationId) ||
          !(await spaces.seesOrganization(ctx, req.organizationId))
        )
          throw notFound("organization");
        organizations = [req.organizationId];
      }
      const [afterAt, afterId] = newestAfter(req.page?.after);
      const res = await tracedQuery<WebhookRow>(
        pool,
        "list webhooks",
        `select ${WEBHOOK_COLUMNS} from webhooks
          where account_id = $1
            and ($2::uuid[] is null or organization_id = any($2))
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::timestamptz is null or (created_at, id) < ($4, $5::uuid))
          order by created_at desc, id desc
          limit $6`,
        [
          p.accountId,
          organizations ?? null,
          req.name || null,
          afterAt,
          afterId,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, newestKeyOf);
      return { webhooks: items.map(toWebhook), page: { nextAfter } };
    },

    async getWebhook(req: GetWebhookRequest, ctx: CallContext): Promise<Webhook> {
      const row = await webhookRow(pool, ctx, req.id);
      if (!readsOrganization(ctx.principal, row.organization_id)) throw notFound("webhook");
      return toWebhook(row);
    },

    /** The payloads are the organization's events: its managers read them. */
    async listDeliveryAttempts(
      req: ListDeliveryAttemptsRequest,
      ctx: CallContext,
    ): Promise<ListDeliveryAttemptsResponse> {
      const row = await managedWebhook(
        pool,
        ctx,
        req.webhookId,
        "reading a webhook's delivery attempts",
      );
      const after = req.page?.after && /^\d+$/.test(req.page.after) ? req.page.after : null;
      const res = await tracedQuery<{
        id: string;
        event_id: string;
        attempt_number: number;
        payload: string;
        status_code: number | null;
        error_message: string | null;
        created_at: Date;
      }>(
        pool,
        "list delivery attempts",
        `select id, event_id, attempt_number, payload, status_code, error_message, created_at
           from delivery_attempts
          where webhook_id = $1 and ($2::bigint is null or id < $2)
          order by id desc
          limit $3`,
        [row.id, after, fetchSize(req.page, ATTEMPTS_PAGE_MAX)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id, ATTEMPTS_PAGE_MAX);
      return {
        deliveryAttempts: items.map((a) => ({
          eventId: a.event_id,
          attemptNumber: a.attempt_number,
          payloadJson: a.payload,
          ...(a.status_code === null ? {} : { statusCode: a.status_code }),
          ...(a.error_message === null ? {} : { errorMessage: a.error_message }),
          createdAt: a.created_at.toISOString(),
        })),
        page: { nextAfter },
      };
    },
  };
}
