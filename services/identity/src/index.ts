import { loadServiceConfig, startService, type RunningService } from "@argus/eventstore";
import type { Logger } from "@argus/platform";
import { identity } from "./service.ts";

export { identity };
export const SCHEMA = identity.description.schema;
export type RunningIdentity = RunningService;

/** Identity as a process runs it, configured from `env`. Used by main and by tests. */
export const startIdentity = (env: NodeJS.ProcessEnv, logger: Logger): Promise<RunningService> =>
  startService(identity, env, logger);

export const loadIdentityConfig = (env: NodeJS.ProcessEnv = process.env) =>
  loadServiceConfig(identity, env).config;
