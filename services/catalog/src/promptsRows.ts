import { DomainError } from "@argus/platform";
import type {
  Prompt,
  PromptVersion,
  PromptVersionContent as ProtoContent,
} from "@argus/proto/catalog/v1/prompts";
import type { PromptVersionContent } from "./domain/prompt.ts";

export interface PromptRow {
  id: string;
  account_id: string;
  space_id: string;
  name: string;
  description: string | null;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface PromptVersionRow {
  id: string;
  prompt_id: string;
  account_id: string;
  space_id: string;
  commit_hash: string;
  commit_message: string;
  input_variable_format: string;
  provider: string;
  model: string;
  messages: unknown[];
  invocation_params: Record<string, unknown> | null;
  provider_params: Record<string, unknown> | null;
  created_by_user_id: string;
  created_at: Date;
  labels: string[];
}

export const PROMPT_COLUMNS =
  "id, account_id, space_id, name, description, created_by_user_id, created_at, updated_at";

export const VERSION_SELECT = `select v.id, v.prompt_id, p.account_id, p.space_id, v.commit_hash,
    v.commit_message, v.input_variable_format, v.provider, v.model, v.messages,
    v.invocation_params, v.provider_params, v.created_by_user_id, v.created_at,
    array(select l.label from prompt_labels l where l.version_id = v.id order by l.label) as labels
  from prompt_versions v join prompts p on p.id = v.prompt_id`;

export function toPrompt(r: PromptRow): Prompt {
  return {
    id: r.id,
    spaceId: r.space_id,
    name: r.name,
    ...(r.description === null ? {} : { description: r.description }),
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

const text = (v: unknown): string => (v === null || v === undefined ? "" : JSON.stringify(v));

export function toPromptVersion(r: PromptVersionRow): PromptVersion {
  return {
    id: r.id,
    promptId: r.prompt_id,
    commitHash: r.commit_hash,
    content: {
      commitMessage: r.commit_message,
      inputVariableFormat: r.input_variable_format,
      provider: r.provider,
      model: r.model,
      messagesJson: JSON.stringify(r.messages),
      invocationParamsJson: text(r.invocation_params),
      providerParamsJson: text(r.provider_params),
    },
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    labels: r.labels,
  };
}

function parseJson(field: string, value: string, fallback: unknown): unknown {
  if (value === "") return fallback;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new DomainError("invalid-request", `${field} is not valid JSON`);
  }
}

/** The wire content, parsed: messages must be an array, params objects (or absent). */
export function contentOf(c: ProtoContent | undefined): PromptVersionContent {
  if (!c) throw new DomainError("invalid-request", "version is required");
  const messages = parseJson("messages", c.messagesJson, []);
  if (!Array.isArray(messages))
    throw new DomainError("invalid-request", "messages must be an array");
  const object = (field: string, v: string) => {
    const parsed = parseJson(field, v, null);
    if (parsed !== null && (typeof parsed !== "object" || Array.isArray(parsed)))
      throw new DomainError("invalid-request", `${field} must be an object`);
    return parsed as Record<string, unknown> | null;
  };
  return {
    commit_message: c.commitMessage,
    input_variable_format: c.inputVariableFormat,
    provider: c.provider,
    model: c.model,
    messages,
    invocation_params: object("invocation_params", c.invocationParamsJson),
    provider_params: object("provider_params", c.providerParamsJson),
  };
}
