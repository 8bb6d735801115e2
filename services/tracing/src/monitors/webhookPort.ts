import type { Client } from "@grpc/grpc-js";
import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { onwardCall, type CallContext, findOnPeer } from "@argus/platform";
import { WebhookServiceService } from "@argus/proto/webhooks/v1/webhooks";

interface ChannelWebhook {
  id: string;
  organizationId: string;
  url: string;
}

/**
 * Webhooks belong to the webhook dispatcher: a monitor's webhook channels are asked of it as
 * the caller when the monitor is written, so a channel names only a webhook its writer may
 * read. Undefined: no such webhook, or the caller may not read it.
 */
export interface WebhookPort {
  get(ctx: CallContext, id: string): Promise<ChannelWebhook | undefined>;
}

export function dispatcherWebhooks(channel: Client): WebhookPort {
  return {
    async get(ctx, id) {
      const w = await findOnPeer(
        channel,
        WebhookServiceService.getWebhook,
        { id },
        onwardCall(ctx),
      );
      return w && { id: w.id, organizationId: w.organizationId, url: w.url };
    },
  };
}

/** Without a webhook dispatcher there are no webhooks: a webhook channel names none. */
export const noWebhooks: WebhookPort = { get: () => Promise.resolve(undefined) };

/** The service's copy of a webhook's endpoint, which monitors' channels show. */
export async function rememberWebhook(
  db: Pool | PoolClient,
  w: { id: string; account_id: string; organization_id: string; url: string },
): Promise<void> {
  await tracedQuery(
    db,
    "remember webhook",
    `insert into channel_webhooks (id, account_id, organization_id, url) values ($1, $2, $3, $4)
     on conflict (id) do update set url = excluded.url`,
    [w.id, w.account_id, w.organization_id, w.url],
  );
}
