import type { Pool } from "pg";
import type { PromptVersionContent } from "@argus/contracts";
import type { Prompt, PromptVersion } from "@argus/proto/catalog/v1/prompts";
import { firstWhere, rowById, type SpaceRow } from "@argus/spaces";

export interface PromptRow extends SpaceRow {
  name: string;
  description: string | null;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

/** The projected row: a version's content as its event carries it, plus where it lives. */
export interface PromptVersionRow extends PromptVersionContent {
  id: string;
  prompt_id: string;
  account_id: string;
  space_id: string;
  commit_hash: string;
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

export const findPrompt = (pool: Pool, id: string) =>
  rowById<PromptRow>(pool, "prompts", PROMPT_COLUMNS, id);

/** The first version matching `where` (over `v`, the versions, and `p`, their prompts). */
export const findPromptVersion = (pool: Pool, where: string, values: string[]) =>
  firstWhere<PromptVersionRow>(pool, "get prompt version", VERSION_SELECT, where, values);
