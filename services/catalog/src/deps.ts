import type { Pool } from "pg";
import type { CommandHandler } from "@argus/eventstore";
import type { Clock, OutboundPolicy, SecretBox } from "@argus/platform";
import type { Spaces } from "@argus/spaces";
import type { QueueUsers } from "./annotationQueues/queueUsers.ts";
import type { SpanPort } from "./annotationQueues/spanPort.ts";
import type { DatasetPort } from "./peers/datasetPort.ts";
import type { MonitorPort } from "./tags/monitorPort.ts";

/** What every catalog resource's handlers may use (built in service.ts). */
export interface CatalogDeps {
  pool: Pool;
  commands: CommandHandler;
  spaces: Spaces;
  datasets: DatasetPort;
  /** The tracing service's monitors, which carry tags. */
  monitors: MonitorPort;
  spans: SpanPort;
  users: QueueUsers;
  /** Where AGENT and EVALUATOR endpoints may point (default: public addresses only). */
  outbound?: OutboundPolicy;
  /** Seals AI keys and endpoint header values at rest (ARGUS_SECRETS_KEY). */
  secrets: SecretBox;
  /** The one source of "now" for commands (the service's clock: tests pin it). */
  clock: Clock;
}
