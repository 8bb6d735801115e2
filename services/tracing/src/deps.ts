import type { Pool } from "pg";
import type { CommandHandler } from "@argus/eventstore";
import type { Clock } from "@argus/platform";
import type { AnnotationConfigs, Annotators, Spaces } from "@argus/spaces";
import type { WebhookPort } from "./monitors/webhookPort.ts";
import type { Projects } from "./projects/tracingProjects.ts";
import type { SpanStore } from "./storage/spanStore.ts";

/** What every tracing handler may use. */
export interface TracingDeps {
  pool: Pool;
  commands: CommandHandler;
  spaces: Spaces;
  projects: Projects;
  store: SpanStore;
  /** The catalog's annotation configs, which span annotations name. */
  configs: AnnotationConfigs;
  /** Who annotates, with the e-mail annotations show. */
  annotators: Annotators;
  /** Days of spans kept (by start time); older days are dropped whole. */
  retentionDays: number;
  /** The one source of "now": writes' times and the windows' defaults (tests pin it). */
  clock: Clock;
  /** The webhook dispatcher's webhooks, which monitor channels name. */
  webhooks: WebhookPort;
  /** How long a metric's queries may run (an evaluation now, a widget's data). */
  statementTimeoutMs: number;
}
