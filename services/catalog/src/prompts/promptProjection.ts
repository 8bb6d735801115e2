import { tracedQuery, type Projections } from "@argus/eventstore";
import type { PromptEvent } from "@argus/contracts";
import { registerResource, unregisterResource } from "../shared/resourceRegistry.ts";
import { json } from "@argus/spaces";

/** Prompts, versions and labels as their events leave them; prompts register for tagging. */
export const promptProjections: Projections<PromptEvent> = {
  async PromptCreated(client, d) {
    await tracedQuery(
      client,
      "project PromptCreated",
      `insert into prompts (id, account_id, space_id, name, description, created_by_user_id, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [d.id, d.account_id, d.space_id, d.name, d.description, d.created_by_user_id, d.created_at],
    );
    await registerResource(client, "prompt", d);
  },
  async PromptVersionCreated(client, d) {
    await tracedQuery(
      client,
      "project PromptVersionCreated",
      `insert into prompt_versions (id, prompt_id, commit_hash, commit_message, input_variable_format,
           provider, model, messages, invocation_params, provider_params, created_by_user_id, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        d.id,
        d.prompt_id,
        d.commit_hash,
        d.commit_message,
        d.input_variable_format,
        d.provider,
        d.model,
        json(d.messages),
        json(d.invocation_params),
        json(d.provider_params),
        d.created_by_user_id,
        d.created_at,
      ],
    );
    // A new version is an update of the prompt (lists show the most recently updated).
    await tracedQuery(client, "touch prompt", "update prompts set updated_at = $2 where id = $1", [
      d.prompt_id,
      d.created_at,
    ]);
  },
  PromptUpdated: (client, d) =>
    tracedQuery(
      client,
      "project PromptUpdated",
      "update prompts set description = $2, updated_at = $3 where id = $1",
      [d.id, d.description, d.updated_at],
    ),
  async PromptDeleted(client, d) {
    await tracedQuery(client, "project PromptDeleted", "delete from prompts where id = $1", [d.id]);
    await unregisterResource(client, "prompt", d.id);
  },
  PromptLabelSet: (client, d) =>
    tracedQuery(
      client,
      "project PromptLabelSet",
      `insert into prompt_labels (prompt_id, label, version_id) values ($1, $2, $3)
         on conflict (prompt_id, label) do update set version_id = excluded.version_id`,
      [d.prompt_id, d.label, d.version_id],
    ),
  PromptLabelDeleted: (client, d) =>
    tracedQuery(
      client,
      "project PromptLabelDeleted",
      "delete from prompt_labels where prompt_id = $1 and label = $2 and version_id = $3",
      [d.prompt_id, d.label, d.version_id],
    ),
};
