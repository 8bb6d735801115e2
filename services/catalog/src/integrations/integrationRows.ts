import type { IntegrationSettings } from "@argus/contracts";
import type { Integration } from "@argus/proto/catalog/v1/integrations";

/** The projected row: the integration's settings as events carry them. */
export interface IntegrationRow extends IntegrationSettings {
  id: string;
  account_id: string;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

// Header values live in integration_secrets and are deliberately not selectable here.
export const INTEGRATION_COLUMNS = `id, account_id, type, name, description, endpoint, input_schema,
  header_names, request_presets, scopings, created_by_user_id, created_at, updated_at`;

export function toIntegration(r: IntegrationRow): Integration {
  return {
    id: r.id,
    type: r.type,
    name: r.name,
    ...(r.description === null ? {} : { description: r.description }),
    endpoint: r.endpoint,
    inputSchemaJson: JSON.stringify(r.input_schema),
    hasHeaders: r.header_names.length > 0,
    requestPresets: r.request_presets.map((p) => ({
      id: p.id,
      name: p.name,
      ...(p.description === null ? {} : { description: p.description }),
      configJson: JSON.stringify(p.config),
      createdAt: p.created_at,
      updatedAt: p.updated_at,
    })),
    scopings: r.scopings.map((s) => ({
      organizationId: s.organization_id ?? "",
      spaceId: s.space_id ?? "",
    })),
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Where an integration's header values are sealed to (`SecretBox`): its own row only. */
export const headersBinding = (id: string) => `integration_secrets.headers:${id}`;
