import { tracedQuery } from "@argus/eventstore";
import { notFound, type SecretBox } from "@argus/platform";
import type {
  ResolveEndpointRequest,
  ResolvedEndpoint,
} from "@argus/proto/catalog/v1/integrations";
import { isUuid } from "@argus/spaces";
import type { CatalogDeps } from "../deps.ts";
import { headersBinding } from "./integrationRows.ts";

/** Header values as JSON text: sealed (a JSON string), or an object stored before sealing. */
function openHeaders(secrets: SecretBox, id: string, stored: string): string {
  const value = JSON.parse(stored) as unknown;
  return typeof value === "string" ? secrets.open(value, headersBinding(id)) : stored;
}

/**
 * The task runner's look-up of an AGENT or EVALUATOR endpoint, header values included
 * (IntegrationDirectory), on its own behalf within the account of the task, as the AI
 * integrations' look-up is (aiIntegrationDirectory.ts).
 */
export function integrationDirectoryQueries({
  pool,
  secrets,
}: Pick<CatalogDeps, "pool" | "secrets">) {
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
