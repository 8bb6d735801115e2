import type { CommandHandler } from "@argus/eventstore";
import type { Clock } from "@argus/platform";
import type { Pool } from "pg";

/**
 * What identity's handlers are built from: commands change state only through `commands`,
 * which returns once every gateway dropped the principals a command changed.
 */
export interface IdentityDeps {
  pool: Pool;
  commands: CommandHandler;
  pepper: string;
  /** The one source of "now" of every handler (tests pin it). */
  clock: Clock;
}
