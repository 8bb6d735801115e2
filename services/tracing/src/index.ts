import { startService, type RunningService } from "@argus/eventstore";
import type { Logger } from "@argus/platform";
import { tracing } from "./service.ts";

export { tracing };
export const SCHEMA = tracing.description.schema;

/** The tracing service as a process runs it, configured from `env`. Used by main and by tests. */
export const startTracing = (env: NodeJS.ProcessEnv, logger: Logger): Promise<RunningService> =>
  startService(tracing, env, logger);
