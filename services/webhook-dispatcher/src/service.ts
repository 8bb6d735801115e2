import { defineService, loadMigrations, migrationsDirOf } from "@argus/service-host";
import { bindService, int, oneOf, type ServiceBinding } from "@argus/platform";
import { WebhookServiceService } from "@argus/proto/webhooks/v1/webhooks";
import { accessFactsMigration, identitySpaces } from "@argus/spaces";
import { serviceSources } from "./webhookSubscriptions/subscriptionSources.ts";
import { subscriptionHandlers } from "./webhookSubscriptions/subscriptionHandlers.ts";
import { webhookCommands } from "./webhooks/webhookCommands.ts";
import { spaceCascadeConsumer } from "./cascades/subscriptionCascades.ts";
import {
  catalogEventsConsumer,
  monitorEventsConsumer,
  taskEventsConsumer,
} from "./deliveries/deliveryConsumers.ts";
import type { Outbound } from "./deliveries/deliverySend.ts";
import { startDeliveryWorker } from "./deliveries/deliveryWorker.ts";
import type { WebhooksDeps } from "./deps.ts";
import { project } from "./projection.ts";
import { webhookQueries } from "./webhooks/webhookQueries.ts";

export function webhookServices(d: WebhooksDeps): ServiceBinding[] {
  return [
    bindService(WebhookServiceService, {
      ...webhookCommands(d),
      ...webhookQueries(d),
      ...subscriptionHandlers(d),
    }),
  ];
}

const flag = (describe: string) => oneOf(describe, ["true", "false"], "false");

const config = {
  ARGUS_WEBHOOK_ALLOW_LOOPBACK: flag(
    "deliver to loopback addresses (and plain http there): tests and local development only",
  ),
  ARGUS_WEBHOOK_ALLOW_PRIVATE: flag(
    "deliver to private, link-local, CGNAT and unique-local addresses (an internal network)",
  ),
  ARGUS_WEBHOOK_MAX_ATTEMPTS: int("attempts per delivery, the first included", 10, 1, 50),
  ARGUS_WEBHOOK_RETRY_BASE_MS: int(
    "delay after a delivery's first failure; each later one doubles (with jitter)",
    15_000,
    10,
    3_600_000,
  ),
  ARGUS_WEBHOOK_RETRY_MAX_MS: int("longest delay between two attempts", 3_600_000, 10, 86_400_000),
  ARGUS_WEBHOOK_CONCURRENCY: int("delivery attempts in flight per replica", 64, 1, 4096),
  ARGUS_WEBHOOK_PER_ENDPOINT: int(
    "delivery attempts in flight to one webhook per replica",
    4,
    1,
    256,
  ),
  ARGUS_WEBHOOK_LEASE_MARGIN_MS: int(
    "how long past its timeout a claimed delivery waits before another replica retries it",
    10_000,
    100,
    600_000,
  ),
};

export const webhookDispatcher = defineService("webhook-dispatcher", {
  config,
  // Identity's space facts, which @argus/spaces keeps for subscription sources.
  migrations: [
    ...loadMigrations(migrationsDirOf("webhook-dispatcher")),
    accessFactsMigration(2),
  ].sort((a, b) => a.id.localeCompare(b.id)),
  project,
  consumers: (d) => {
    const cascade = { schema: d.schema, project, clock: d.clock };
    return [
      catalogEventsConsumer({ subjectRoot: d.config.subjectRoot, cascade }),
      taskEventsConsumer({ subjectRoot: d.config.subjectRoot, cascade }),
      spaceCascadeConsumer({ subjectRoot: d.config.subjectRoot, cascade }),
      monitorEventsConsumer({ subjectRoot: d.config.subjectRoot }),
    ];
  },
  async init(d) {
    return startDeliveryWorker({
      pool: d.pool,
      outbound: outboundOf(d.config),
      clock: d.clock,
      schedule: {
        maxAttempts: d.config.ARGUS_WEBHOOK_MAX_ATTEMPTS,
        baseDelayMs: d.config.ARGUS_WEBHOOK_RETRY_BASE_MS,
        maxDelayMs: d.config.ARGUS_WEBHOOK_RETRY_MAX_MS,
      },
      logger: d.logger,
      concurrency: d.config.ARGUS_WEBHOOK_CONCURRENCY,
      perWebhook: d.config.ARGUS_WEBHOOK_PER_ENDPOINT,
      leaseMarginMs: d.config.ARGUS_WEBHOOK_LEASE_MARGIN_MS,
      pollMs: 1000,
    });
  },
  grpc: (d) => {
    const spaces = identitySpaces(d.channels.identity!, d.pool);
    return webhookServices({
      pool: d.pool,
      commands: d.commands,
      spaces,
      sources: serviceSources(d.channels.catalog!, d.channels["task-runner"]!, spaces),
      outbound: outboundOf(d.config),
      clock: d.clock,
    });
  },
});

function outboundOf(c: {
  ARGUS_WEBHOOK_ALLOW_LOOPBACK: string;
  ARGUS_WEBHOOK_ALLOW_PRIVATE: string;
}): Outbound {
  return {
    policy: {
      allowLoopback: c.ARGUS_WEBHOOK_ALLOW_LOOPBACK === "true",
      allowPrivate: c.ARGUS_WEBHOOK_ALLOW_PRIVATE === "true",
    },
  };
}
