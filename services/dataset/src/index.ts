import { startService, type RunningService, type StartOptions } from "@argus/service-host";
import type { Logger } from "@argus/platform";
import { dataset } from "./service.ts";

export { dataset };
export const SCHEMA = dataset.description.schema;

/**
 * The dataset service as a process runs it, configured from `env`. Used by main and by tests
 * (which may pin its clock through `options`).
 */
export const startDataset = (
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options?: StartOptions,
): Promise<RunningService> => startService(dataset, env, logger, options);
