import type { CommandHandler } from "@argus/eventstore";
import type { Clock } from "@argus/platform";
import type { Spaces } from "@argus/spaces";
import type { Pool } from "pg";
import type { Outbound } from "./deliveries/deliverySend.ts";
import type { Sources } from "./webhookSubscriptions/subscriptionSources.ts";

/** What every webhook handler may use. */
export interface WebhooksDeps {
  pool: Pool;
  commands: CommandHandler;
  spaces: Spaces;
  sources: Sources;
  /** Where deliveries may go, and how names resolve. */
  outbound: Outbound;
  /** The one source of "now" of every handler (tests pin it). */
  clock: Clock;
}
