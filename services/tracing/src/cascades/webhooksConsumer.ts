import { aggregateSubjects, streamId } from "@argus/contracts";
import { tracedQuery, type StoredEvent } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import { causedBy, cascadeScope, type Cascade } from "@argus/spaces";
import { monitorDecider } from "../monitors/monitorDecider.ts";
import { rememberWebhook } from "../monitors/webhookPort.ts";

const field = (event: StoredEvent, key: string): string => {
  const v = ((event.data ?? {}) as Record<string, unknown>)[key];
  if (typeof v !== "string")
    throw new Error(`${event.type} ${event.eventId} does not have the contract's shape (${key})`);
  return v;
};

/**
 * The webhook dispatcher's webhook events: the copy of each webhook's endpoint (which a
 * monitor's channel shows) follows them, and a deleted webhook leaves every monitor's
 * channels (each such monitor's settings change, as if its owner had removed the channel).
 */
export function webhooksConsumer(o: {
  subjectRoot: string;
  cascade: Cascade;
}): DurableConsumerOptions {
  return {
    durable: "tracing-webhooks",
    filterSubject: aggregateSubjects(o.subjectRoot, "webhook-dispatcher", "webhook"),
    concurrency: 4,
    handler: async (tx, event) => {
      if (event.type === "WebhookCreated")
        await rememberWebhook(tx, {
          id: field(event, "id"),
          account_id: field(event, "account_id"),
          organization_id: field(event, "organization_id"),
          url: field(event, "url"),
        });
      else if (event.type === "WebhookUpdated")
        await tracedQuery(
          tx,
          "webhook endpoint",
          "update channel_webhooks set url = $2 where id = $1",
          [field(event, "id"), field(event, "url")],
        );
      else if (event.type === "WebhookDeleted") {
        const id = field(event, "id");
        await tracedQuery(tx, "webhook gone", "delete from channel_webhooks where id = $1", [id]);
        const monitors = await tracedQuery<{ id: string; account_id: string; space_id: string }>(
          tx,
          "monitors notifying a deleted webhook",
          `select id, account_id, space_id from monitors
            where organization_id = $1 and settings->'channels' @> $2::jsonb`,
          [field(event, "organization_id"), JSON.stringify([{ type: "WEBHOOK", webhook_id: id }])],
        );
        const scope = cascadeScope(tx, o.cascade);
        for (const m of monitors.rows)
          await scope.decide(
            streamId("monitor", m.id),
            monitorDecider,
            {
              // The channels as of the version the change is appended at.
              build: async (state) => ({
                type: "UpdateMonitor" as const,
                monitorType: undefined,
                changes: {
                  channels: (state.status === "live" ? state.settings.channels : []).filter(
                    (c) => !(c.type === "WEBHOOK" && c.webhook_id === id),
                  ),
                },
                now: o.cascade.clock.now(),
              }),
            },
            causedBy(event, m.account_id, m.space_id),
          );
      }
    },
  };
}
