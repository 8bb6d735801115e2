import type { Client } from "@grpc/grpc-js";
import { callUnary, fromGrpcError, type CallCredential } from "@argus/platform";
import {
  AiIntegrationDirectoryService,
  type ResolvedIntegration,
} from "@argus/proto/catalog/v1/ai_integrations";
import {
  IntegrationDirectoryService,
  type ResolvedEndpoint,
} from "@argus/proto/catalog/v1/integrations";

/** The catalog's AI integrations, key included, asked on the task runner's own behalf. */
export type Integrations = (accountId: string, id: string) => Promise<ResolvedIntegration>;

export function catalogIntegrations(channel: Client, self: CallCredential): Integrations {
  return async (accountId, id) => {
    try {
      return await callUnary(
        channel,
        AiIntegrationDirectoryService.resolveIntegration,
        { accountId, id },
        { credential: self, requestId: `integration-${id}` },
      );
    } catch (err) {
      throw fromGrpcError(err);
    }
  };
}

/** The catalog's AGENT and EVALUATOR endpoints, header values included, asked likewise. */
export type Endpoints = (accountId: string, id: string) => Promise<ResolvedEndpoint>;

export function catalogEndpoints(channel: Client, self: CallCredential): Endpoints {
  return async (accountId, id) => {
    try {
      return await callUnary(
        channel,
        IntegrationDirectoryService.resolveEndpoint,
        { accountId, id },
        { credential: self, requestId: `endpoint-${id}` },
      );
    } catch (err) {
      throw fromGrpcError(err);
    }
  };
}
