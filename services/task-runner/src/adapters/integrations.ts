import type { Client } from "@grpc/grpc-js";
import { callUnary, fromGrpcError, type CallCredential } from "@argus/platform";
import {
  AiIntegrationDirectoryService,
  type ResolvedIntegration,
} from "@argus/proto/catalog/v1/ai_integrations";

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
