import { LIMITS, streamId, type WebhookSourceType } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import {
  DomainError,
  actorMetadata,
  fetchSize,
  holdsAnywhere,
  newestAfter,
  newestKeyOf,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import type {
  CreateSubscriptionRequest,
  DeleteSubscriptionRequest,
  DeleteSubscriptionResponse,
  GetSubscriptionRequest,
  ListSubscriptionsRequest,
  ListSubscriptionsResponse,
  Subscription,
} from "@argus/proto/webhooks/v1/webhooks";
import { readsOrganization } from "../webhooks/webhookAccess.ts";
import { readsSource, requireChange } from "./subscriptionSources.ts";
import { isSourceType, requireEventOfSource, subscriptionDecider } from "./subscriptionDecider.ts";
import { webhookRow } from "../webhooks/webhookRows.ts";
import {
  SUBSCRIPTION_COLUMNS,
  subscriptionRow,
  toSubscription,
  type SubscriptionRow,
} from "./subscriptionRows.ts";
import type { WebhooksDeps } from "../deps.ts";

export function subscriptionHandlers(deps: WebhooksDeps) {
  const { pool, spaces, sources } = deps;

  /**
   * The subscription if the caller reads its source, judged on its space as identity has it;
   * 404 otherwise.
   */
  async function readableSubscription(ctx: CallContext, id: string): Promise<SubscriptionRow> {
    const row = await subscriptionRow(pool, ctx, id);
    const facts = await spaces.facts(ctx, row.space_id);
    if (!facts || !readsSource(ctx.principal, row.source_type as WebhookSourceType, facts.space))
      throw notFound("webhook subscription");
    return row;
  }

  return {
    /**
     * The public API's order: the body (422), the source (404, 403), the webhook (404), then
     * a duplicate (409) and the per-source cap (422).
     */
    async createSubscription(
      req: CreateSubscriptionRequest,
      ctx: CallContext,
    ): Promise<Subscription> {
      const { sourceType, event } = requireEventOfSource(req.sourceType, req.event);
      const place = await sources.locate(ctx, sourceType, req.sourceId);
      requireChange(ctx, place);
      const webhook = await webhookRow(pool, ctx, req.webhookId).catch(() => undefined);
      if (
        !webhook ||
        webhook.organization_id !== place.space.organizationId ||
        !readsOrganization(ctx.principal, webhook.organization_id)
      )
        throw notFound("webhook");
      const id = uuidv7();
      await deps.commands.transact(async (scope) => {
        // Subscriptions of one source and event are counted and made one at a time.
        await tracedQuery(
          scope.client,
          "lock source event",
          "select pg_advisory_xact_lock(hashtext($1))",
          [`${place.sourceId}/${event}`],
        );
        const existing = await tracedQuery<{ n: number; mine: boolean }>(
          scope.client,
          "source event subscriptions",
          `select count(*)::int as n, coalesce(bool_or(webhook_id = $3), false) as mine
             from webhook_subscriptions
            where source_type = $1 and source_id = $2 and event = $4`,
          [sourceType, place.sourceId, webhook.id, event],
        );
        const { n, mine } = existing.rows[0]!;
        if (mine)
          throw new DomainError(
            "resource-conflict",
            "this webhook is already subscribed to this event of the source",
          );
        if (n >= LIMITS.WEBHOOKS_PER_SOURCE_EVENT_MAX)
          throw new DomainError(
            "unprocessable-entity",
            `at most ${LIMITS.WEBHOOKS_PER_SOURCE_EVENT_MAX} webhooks may subscribe to one event of a source`,
          );
        await scope.decide(
          streamId("webhook_subscription", id),
          subscriptionDecider,
          {
            type: "CreateSubscription",
            data: {
              id,
              account_id: ctx.principal.accountId,
              organization_id: webhook.organization_id,
              webhook_id: webhook.id,
              source_type: sourceType,
              source_id: place.sourceId,
              space_id: place.space.id,
              event,
              created_at: deps.clock.now().toISOString(),
            },
          },
          actorMetadata(ctx),
        );
      });
      return toSubscription(await subscriptionRow(pool, ctx, id));
    },

    async getSubscription(req: GetSubscriptionRequest, ctx: CallContext): Promise<Subscription> {
      const row = await readableSubscription(ctx, req.id);
      return toSubscription(row);
    },

    async deleteSubscription(
      req: DeleteSubscriptionRequest,
      ctx: CallContext,
    ): Promise<DeleteSubscriptionResponse> {
      const row = await readableSubscription(ctx, req.id);
      const place = await sources.locate(ctx, row.source_type as WebhookSourceType, row.source_id);
      requireChange(ctx, place);
      await deps.commands.handle(
        streamId("webhook_subscription", row.id),
        subscriptionDecider,
        { type: "DeleteSubscription", now: deps.clock.now() },
        actorMetadata(ctx),
      );
      return {};
    },

    /**
     * Newest first. A page is read, then what the caller may not read is left out (the public
     * API's documented behaviour), so a page can be short while more follow.
     */
    async listSubscriptions(
      req: ListSubscriptionsRequest,
      ctx: CallContext,
    ): Promise<ListSubscriptionsResponse> {
      const p = ctx.principal;
      let source: { type: string; id: string } | undefined;
      if (req.sourceType || req.sourceId) {
        if (!isSourceType(req.sourceType))
          throw new DomainError(
            "invalid-request",
            "source_type must be PROMPT, EVALUATOR, ONLINE_TASK or SPACE",
          );
        const place = await sources.locate(ctx, req.sourceType, req.sourceId);
        if (!readsSource(p, place.sourceType, place.space, place.taskKind))
          throw notFound("source");
        source = { type: place.sourceType, id: place.sourceId };
      } else if (
        !(["PROMPT_READ", "EVALUATOR_READ", "PROJECT_EVAL_TASK_READ"] as const).some((perm) =>
          holdsAnywhere(p, perm),
        )
      )
        throw new DomainError(
          "access-forbidden",
          "listing webhook subscriptions requires reading some prompt, evaluator or task",
        );
      const [afterAt, afterId] = newestAfter(req.page?.after);
      const res = await tracedQuery<SubscriptionRow>(
        pool,
        "list subscriptions",
        `select ${SUBSCRIPTION_COLUMNS} from webhook_subscriptions
          where account_id = $1
            and ($2::text is null or (source_type = $2 and source_id = $3::uuid))
            and ($4::timestamptz is null or (created_at, id) < ($4, $5::uuid))
          order by created_at desc, id desc
          limit $6`,
        [
          p.accountId,
          source?.type ?? null,
          source?.id ?? null,
          afterAt,
          afterId,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, newestKeyOf);
      let visible = items;
      if (!source) {
        const { spaces: facts } = await spaces.factsOfMany(
          ctx,
          [...new Set(items.map((r) => r.space_id))],
          [],
        );
        visible = items.filter((r) => {
          const space = facts.get(r.space_id);
          return space !== undefined && readsSource(p, r.source_type as WebhookSourceType, space);
        });
      }
      return { subscriptions: visible.map(toSubscription), page: { nextAfter } };
    },
  };
}
