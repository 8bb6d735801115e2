import type { Pool } from "pg";
import type { CommandHandler } from "@argus/eventstore";
import type { Clock } from "@argus/platform";
import type { AnnotationConfigs, Annotators, Spaces } from "@argus/spaces";

/** What every dataset handler may use. */
export interface DatasetDeps {
  pool: Pool;
  commands: CommandHandler;
  spaces: Spaces;
  /** The catalog's annotation configs, which annotations name. */
  configs: AnnotationConfigs;
  /** Who annotates, with the e-mail annotations show. */
  annotators: Annotators;
  /** The one source of "now" for writes (tests pin it). */
  clock: Clock;
}
