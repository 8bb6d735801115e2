import type { Client } from "@grpc/grpc-js";
import { type CallCredential, type ClientMethod, callPeer } from "@argus/platform";
import {
  AiIntegrationDirectoryService,
  type ResolvedIntegration,
} from "@argus/proto/catalog/v1/ai_integrations";
import {
  IntegrationDirectoryService,
  type ResolvedEndpoint,
} from "@argus/proto/catalog/v1/integrations";

type Lookup<T> = (accountId: string, id: string) => Promise<T>;

/** One of the catalog's directory look-ups, asked on the task runner's own behalf. */
function ownBehalf<T>(
  channel: Client,
  self: CallCredential,
  method: ClientMethod<{ accountId: string; id: string }, T>,
  what: string,
): Lookup<T> {
  return async (accountId, id) => {
    return callPeer(
      channel,
      method,
      { accountId, id },
      { credential: self, requestId: `${what}-${id}` },
    );
  };
}

/** The catalog's AI integrations, key included. */
export type Integrations = Lookup<ResolvedIntegration>;

export const catalogIntegrations = (channel: Client, self: CallCredential): Integrations =>
  ownBehalf(channel, self, AiIntegrationDirectoryService.resolveIntegration, "integration");

/** The catalog's AGENT and EVALUATOR endpoints, header values included. */
export type Endpoints = Lookup<ResolvedEndpoint>;

export const catalogEndpoints = (channel: Client, self: CallCredential): Endpoints =>
  ownBehalf(channel, self, IntegrationDirectoryService.resolveEndpoint, "endpoint");
