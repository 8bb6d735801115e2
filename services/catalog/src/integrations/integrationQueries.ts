import type { Pool } from "pg";
import type { CallContext } from "@argus/platform";
import type {
  GetIntegrationRequest,
  Integration,
  ListIntegrationsRequest,
  ListIntegrationsResponse,
} from "@argus/proto/catalog/v1/integrations";
import { INTEGRATION_COLUMNS, toIntegration, type IntegrationRow } from "./integrationRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { listScoped, visibleScoped, type ScopedTable } from "../shared/scopedVisibility.ts";

const INTEGRATIONS: ScopedTable = {
  table: "integrations",
  columns: INTEGRATION_COLUMNS,
  permission: "REMOTE_ENDPOINT_INTEGRATION_READ",
  label: "integration",
};

/** The AGENT or EVALUATOR integration when the caller may see it; 404 otherwise. */
export const visibleRemoteIntegration = (pool: Pool, ctx: CallContext, id: string) =>
  visibleScoped<IntegrationRow>(pool, INTEGRATIONS, ctx, id);

export function integrationQueries(d: CatalogDeps) {
  return {
    async listIntegrations(
      req: ListIntegrationsRequest,
      ctx: CallContext,
    ): Promise<ListIntegrationsResponse> {
      const { items, nextAfter } = await listScoped<IntegrationRow>(d, INTEGRATIONS, req, ctx, {
        sql: "type = $7",
        params: [req.type],
      });
      return { integrations: items.map(toIntegration), page: { nextAfter } };
    },

    async getIntegration(req: GetIntegrationRequest, ctx: CallContext): Promise<Integration> {
      return toIntegration(await visibleRemoteIntegration(d.pool, ctx, req.id));
    },
  };
}
