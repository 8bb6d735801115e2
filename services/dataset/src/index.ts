import { startService, type RunningService } from "@argus/eventstore";
import type { Logger } from "@argus/platform";
import { dataset } from "./service.ts";

export { dataset };
export const SCHEMA = dataset.description.schema;

/** The dataset service as a process runs it, configured from `env`. Used by main and by tests. */
export const startDataset = (env: NodeJS.ProcessEnv, logger: Logger): Promise<RunningService> =>
  startService(dataset, env, logger);
