import { tracedQuery } from "@argus/eventstore";
import { notFound, type SecretBox } from "@argus/platform";
import type {
  ResolveIntegrationRequest,
  ResolvedIntegration,
} from "@argus/proto/catalog/v1/ai_integrations";
import type {
  ResolveEndpointRequest,
  ResolvedEndpoint,
} from "@argus/proto/catalog/v1/integrations";
import { isUuid } from "@argus/spaces";
import type { CatalogDeps } from "../service.ts";
import { apiKeyBinding } from "./aiIntegrationCommands.ts";
import { headersBinding } from "../integrations/integrationCommands.ts";

/** Header values as JSON text: sealed (a JSON string), or an object stored before sealing. */
function openHeaders(secrets: SecretBox, id: string, stored: string): string {
  const value = JSON.parse(stored) as unknown;
  return typeof value === "string" ? secrets.open(value, headersBinding(id)) : stored;
}

/**
 * The task runner's look-up of an AI integration, key included (AiIntegrationDirectory): a run
 * has no caller, so the task runner asks on its own behalf, within the account of the task;
 * its creator was authorized when the evaluator named the integration.
 */
export function integrationDirectoryQueries({
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

/**
 * The task runner's look-up of an AGENT or EVALUATOR endpoint, header values included
 * (IntegrationDirectory), on its own behalf within the account of the task, as above.
 */
export function endpointDirectoryQueries({ pool, secrets }: Pick<CatalogDeps, "pool" | "secrets">) {
  return {
    async resolveEndpoint(req: ResolveEndpointRequest): Promise<ResolvedEndpoint> {
      if (!isUuid(req.id)) throw notFound("integration");
      const res = await tracedQuery<{
        id: string;
        type: string;
        endpoint: string;
        headers: string | null;
        input_schema: string;
      }>(
        pool,
        "resolve integration endpoint",
        `select i.id, i.type, i.endpoint, s.headers::text as headers,
                i.input_schema::text as input_schema
           from integrations i
           left join integration_secrets s on s.integration_id = i.id
          where i.id = $1 and i.account_id = $2`,
        [req.id, req.accountId],
      );
      const r = res.rows[0];
      if (!r) throw notFound("integration");
      return {
        id: r.id,
        type: r.type,
        endpoint: r.endpoint,
        ...(r.headers === null ? {} : { headersJson: openHeaders(secrets, r.id, r.headers) }),
        inputSchemaJson: r.input_schema,
      };
    },
  };
}
