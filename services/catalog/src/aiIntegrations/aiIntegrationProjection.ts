import { tracedQuery, type Projections } from "@argus/eventstore";
import type {
  AiIntegrationConfig,
  AiIntegrationEvent,
  AiIntegrationKeyFacts,
} from "@argus/contracts";
import { json } from "@argus/spaces";

const configValues = (d: AiIntegrationConfig & AiIntegrationKeyFacts) => [
  d.name,
  d.provider,
  d.base_url,
  d.model_names,
  json(d.headers),
  d.enable_default_models,
  d.function_calling_enabled,
  d.auth_type,
  json(d.provider_metadata),
  JSON.stringify(d.scopings),
  d.scopings.map((s) => s.space_id).filter((id): id is string => id !== null),
  d.has_api_key,
  d.api_key_hint,
];

/** AI integrations as their events leave them (the key itself is written by the command). */
export const aiIntegrationProjections: Projections<AiIntegrationEvent> = {
  AiIntegrationCreated: (client, d) =>
    tracedQuery(
      client,
      "project AiIntegrationCreated",
      `insert into ai_integrations (name, provider, base_url, model_names, headers, enable_default_models,
           function_calling_enabled, auth_type, provider_metadata, scopings, scoped_space_ids, has_api_key,
           api_key_hint, id, account_id, created_by_user_id, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)`,
      [...configValues(d), d.id, d.account_id, d.created_by_user_id, d.created_at],
    ),
  AiIntegrationUpdated: (client, d) =>
    tracedQuery(
      client,
      "project AiIntegrationUpdated",
      `update ai_integrations set name = $1, provider = $2, base_url = $3, model_names = $4, headers = $5,
           enable_default_models = $6, function_calling_enabled = $7, auth_type = $8, provider_metadata = $9,
           scopings = $10, scoped_space_ids = $11, has_api_key = $12, api_key_hint = $13, updated_at = $15
         where id = $14`,
      [...configValues(d), d.id, d.updated_at],
    ),
  AiIntegrationDeleted: (client, d) =>
    tracedQuery(
      client,
      "project AiIntegrationDeleted",
      "delete from ai_integrations where id = $1",
      [d.id],
    ),
};
