import type { Pool } from "pg";
import type { CallContext } from "@argus/platform";
import type {
  AiIntegration,
  GetAiIntegrationRequest,
  ListAiIntegrationsRequest,
  ListAiIntegrationsResponse,
} from "@argus/proto/catalog/v1/ai_integrations";
import {
  AI_INTEGRATION_COLUMNS,
  toAiIntegration,
  type AiIntegrationRow,
} from "./aiIntegrationRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { listScoped, visibleScoped, type ScopedTable } from "../shared/scopedVisibility.ts";

const AI_INTEGRATIONS: ScopedTable = {
  table: "ai_integrations",
  columns: AI_INTEGRATION_COLUMNS,
  permission: "AI_PROVIDER_READ",
  label: "AI integration",
};

/** The integration when the caller may see it; 404 otherwise. */
export const visibleIntegration = (pool: Pool, ctx: CallContext, id: string) =>
  visibleScoped<AiIntegrationRow>(pool, AI_INTEGRATIONS, ctx, id);

export function aiIntegrationQueries(d: CatalogDeps) {
  return {
    async listAiIntegrations(
      req: ListAiIntegrationsRequest,
      ctx: CallContext,
    ): Promise<ListAiIntegrationsResponse> {
      // The /v2/integrations group's LLM view names the providers it can show.
      const providers =
        req.providers.length === 0
          ? undefined
          : { sql: "provider = any($7::text[])", params: [req.providers] };
      const { items, nextAfter } = await listScoped<AiIntegrationRow>(
        d,
        AI_INTEGRATIONS,
        req,
        ctx,
        providers,
      );
      return { aiIntegrations: items.map(toAiIntegration), page: { nextAfter } };
    },

    async getAiIntegration(req: GetAiIntegrationRequest, ctx: CallContext): Promise<AiIntegration> {
      return toAiIntegration(await visibleIntegration(d.pool, ctx, req.id));
    },
  };
}
