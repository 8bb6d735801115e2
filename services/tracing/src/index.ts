import { startService, type RunningService, type StartOptions } from "@argus/service-host";
import type { Logger } from "@argus/platform";
import { tracing } from "./service.ts";

export { tracing };
export const SCHEMA = tracing.description.schema;

/**
 * The tracing service as a process runs it, configured from `env`. Used by main and by tests
 * (which may pin its clock through `options`).
 */
export const startTracing = (
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options?: StartOptions,
): Promise<RunningService> => startService(tracing, env, logger, options);
