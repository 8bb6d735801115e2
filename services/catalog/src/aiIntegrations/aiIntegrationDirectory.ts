import { tracedQuery } from "@argus/eventstore";
import { notFound } from "@argus/platform";
import type {
  ResolveIntegrationRequest,
  ResolvedIntegration,
} from "@argus/proto/catalog/v1/ai_integrations";
import { isUuid } from "@argus/spaces";
import type { CatalogDeps } from "../deps.ts";
import { apiKeyBinding } from "./aiIntegrationRows.ts";

/**
 * The task runner's look-up of an AI integration, key included (AiIntegrationDirectory): a run
 * has no caller, so the task runner asks on its own behalf, within the account of the task;
 * its creator was authorized when the evaluator named the integration.
 */
export function aiIntegrationDirectoryQueries({
  pool,
  secrets,
}: Pick<CatalogDeps, "pool" | "secrets">) {
  return {
    async resolveIntegration(req: ResolveIntegrationRequest): Promise<ResolvedIntegration> {
      if (!isUuid(req.id)) throw notFound("AI integration");
      const res = await tracedQuery<{
        id: string;
        provider: string;
        base_url: string | null;
        api_key: string | null;
        headers: string | null;
        auth_type: string;
        provider_metadata: string | null;
        model_names: string[];
      }>(
        pool,
        "resolve AI integration",
        `select i.id, i.provider, i.base_url, s.api_key, i.headers::text as headers, i.auth_type,
                i.provider_metadata::text as provider_metadata, i.model_names
           from ai_integrations i
           left join ai_integration_secrets s on s.integration_id = i.id
          where i.id = $1 and i.account_id = $2`,
        [req.id, req.accountId],
      );
      const r = res.rows[0];
      if (!r) throw notFound("AI integration");
      return {
        id: r.id,
        provider: r.provider,
        ...(r.base_url === null ? {} : { baseUrl: r.base_url }),
        ...(r.api_key === null ? {} : { apiKey: secrets.open(r.api_key, apiKeyBinding(r.id)) }),
        ...(r.headers === null ? {} : { headersJson: r.headers }),
        authType: r.auth_type,
        ...(r.provider_metadata === null ? {} : { providerMetadataJson: r.provider_metadata }),
        modelNames: r.model_names,
      };
    },
  };
}
