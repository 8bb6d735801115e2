import {
  loadServiceConfig,
  startService,
  type RunningService,
  type StartOptions,
} from "@argus/service-host";
import type { Logger } from "@argus/platform";
import { identity } from "./service.ts";

export { identity };
export const SCHEMA = identity.description.schema;
export type RunningIdentity = RunningService;

/** Identity as a process runs it, configured from `env`; tests may pin its clock in `options`. */
export const startIdentity = (
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options?: StartOptions,
): Promise<RunningService> => startService(identity, env, logger, options);

export const loadIdentityConfig = (env: NodeJS.ProcessEnv = process.env) =>
  loadServiceConfig(identity, env).config;
