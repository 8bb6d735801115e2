import { tracedQuery, type Projections } from "@argus/eventstore";
import type { IntegrationEvent, IntegrationSettings } from "@argus/contracts";

const settingValues = (d: IntegrationSettings) => [
  d.type,
  d.name,
  d.description,
  d.endpoint,
  JSON.stringify(d.input_schema),
  d.header_names,
  JSON.stringify(d.request_presets),
  JSON.stringify(d.scopings),
  d.scopings.map((s) => s.space_id).filter((id): id is string => id !== null),
];

/** Integrations as their events leave them (header values are written by the command). */
export const integrationProjections: Projections<IntegrationEvent> = {
  IntegrationCreated: (client, d) =>
    tracedQuery(
      client,
      "project IntegrationCreated",
      `insert into integrations (type, name, description, endpoint, input_schema, header_names,
           request_presets, scopings, scoped_space_ids, id, account_id, created_by_user_id,
           created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
      [...settingValues(d), d.id, d.account_id, d.created_by_user_id, d.created_at],
    ),
  IntegrationUpdated: (client, d) =>
    tracedQuery(
      client,
      "project IntegrationUpdated",
      `update integrations set type = $1, name = $2, description = $3, endpoint = $4,
           input_schema = $5, header_names = $6, request_presets = $7, scopings = $8,
           scoped_space_ids = $9, updated_at = $11
         where id = $10`,
      [...settingValues(d), d.id, d.updated_at],
    ),
  IntegrationDeleted: (client, d) =>
    tracedQuery(client, "project IntegrationDeleted", "delete from integrations where id = $1", [
      d.id,
    ]),
};
