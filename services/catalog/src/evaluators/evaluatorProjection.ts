import { tracedQuery, type Projections } from "@argus/eventstore";
import type { EvaluatorEvent } from "@argus/contracts";
import { registerResource, unregisterResource } from "../shared/resourceRegistry.ts";

/** Evaluators and their versions as their events leave them; evaluators register for tagging. */
export const evaluatorProjections: Projections<EvaluatorEvent> = {
  async EvaluatorCreated(client, d) {
    await tracedQuery(
      client,
      "project EvaluatorCreated",
      `insert into evaluators (id, account_id, space_id, name, description, type, created_by_user_id, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [
        d.id,
        d.account_id,
        d.space_id,
        d.name,
        d.description,
        d.evaluator_type,
        d.created_by_user_id,
        d.created_at,
      ],
    );
    await registerResource(client, "evaluator", d);
  },
  async EvaluatorVersionCreated(client, d) {
    await tracedQuery(
      client,
      "project EvaluatorVersionCreated",
      `insert into evaluator_versions (id, evaluator_id, type, commit_hash, commit_message, config, created_by_user_id, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        d.id,
        d.evaluator_id,
        d.evaluator_type,
        d.commit_hash,
        d.commit_message,
        JSON.stringify(d.config),
        d.created_by_user_id,
        d.created_at,
      ],
    );
    await tracedQuery(
      client,
      "touch evaluator",
      "update evaluators set updated_at = $2 where id = $1",
      [d.evaluator_id, d.created_at],
    );
  },
  async EvaluatorVersionsDeleted(client, d) {
    await tracedQuery(
      client,
      "project EvaluatorVersionsDeleted",
      "delete from evaluator_versions where evaluator_id = $1 and id = any($2::uuid[])",
      [d.evaluator_id, d.version_ids],
    );
    await tracedQuery(
      client,
      "touch evaluator",
      "update evaluators set updated_at = $2 where id = $1",
      [d.evaluator_id, d.deleted_at],
    );
  },
  EvaluatorUpdated: (client, d) =>
    tracedQuery(
      client,
      "project EvaluatorUpdated",
      "update evaluators set name = $2, description = $3, updated_at = $4 where id = $1",
      [d.id, d.name, d.description, d.updated_at],
    ),
  async EvaluatorDeleted(client, d) {
    await tracedQuery(client, "project EvaluatorDeleted", "delete from evaluators where id = $1", [
      d.id,
    ]);
    await unregisterResource(client, "evaluator", d.id);
  },
};
