import { DomainError } from "@argus/platform";
import type { AiIntegrationConfig as ProtoAiConfig } from "@argus/proto/catalog/v1/ai_integrations";

/** Wire values (JSON text in proto strings) as the domain's, or a 400 naming the field. */
export const invalid = (detail: string) => new DomainError("invalid-request", detail);

export function parseJson(field: string, value: string, fallback: unknown): unknown {
  if (value === "") return fallback;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw invalid(`${field} is not valid JSON`);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function parseObject(field: string, json: string | undefined): Record<string, never> | null {
  if (json === undefined) return null;
  try {
    const v = JSON.parse(json) as unknown;
    if (isObject(v)) return v as Record<string, never>;
  } catch {
    // reported below
  }
  throw invalid(`${field} must be a JSON object`);
}

/** The scopings of an AI, AGENT or EVALUATOR integration: empty ids are absent ones. */
export const scopingsOf = (scopings: ProtoAiConfig["scopings"]) =>
  scopings.map((s) => ({ organization_id: s.organizationId || null, space_id: s.spaceId || null }));
