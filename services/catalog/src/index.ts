import { startService, type RunningService } from "@argus/eventstore";
import type { Logger } from "@argus/platform";
import { catalog } from "./service.ts";

export { catalog };
export { registerResource, unregisterResource, findResource } from "./shared/resourceRegistry.ts";
export const SCHEMA = catalog.description.schema;
export type RunningCatalog = RunningService;

/** The catalog as a process runs it, configured from `env`. Used by main and by tests. */
export const startCatalog = (env: NodeJS.ProcessEnv, logger: Logger): Promise<RunningService> =>
  startService(catalog, env, logger);
