import type { Pool } from "pg";
import type { CommandHandler } from "@argus/eventstore";
import type { Clock } from "@argus/platform";
import type { Spaces } from "@argus/spaces";
import type { Places } from "./peers/places.ts";

/** What every task handler may use. */
export interface TasksDeps {
  pool: Pool;
  commands: CommandHandler;
  spaces: Spaces;
  places: Places;
  /** The one source of "now" for writes and a run's default window end (tests pin it). */
  clock: Clock;
}
