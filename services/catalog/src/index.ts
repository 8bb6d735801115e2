import { startService, type RunningService, type StartOptions } from "@argus/service-host";
import type { Logger } from "@argus/platform";
import { catalog } from "./service.ts";

export { catalog };
export { registerResource, unregisterResource, findResource } from "./shared/resourceRegistry.ts";
export const SCHEMA = catalog.description.schema;
export type RunningCatalog = RunningService;

/** The catalog as a process runs it, configured from `env`; tests may pin its clock. */
export const startCatalog = (
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options?: StartOptions,
): Promise<RunningService> => startService(catalog, env, logger, options);
