import type { Pool } from "pg";
import type { Evaluator, EvaluatorVersion } from "@argus/proto/catalog/v1/evaluators";
import { firstWhere, rowById, type SpaceRow } from "@argus/spaces";

export interface EvaluatorRow extends SpaceRow {
  name: string;
  description: string | null;
  type: string;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface EvaluatorVersionRow {
  id: string;
  evaluator_id: string;
  account_id: string;
  space_id: string;
  type: string;
  commit_hash: string;
  commit_message: string;
  config: Record<string, unknown>;
  created_by_user_id: string;
  created_at: Date;
}

export const EVALUATOR_COLUMNS =
  "id, account_id, space_id, name, description, type, created_by_user_id, created_at, updated_at";

export const EVALUATOR_VERSION_SELECT = `select v.id, v.evaluator_id, e.account_id, e.space_id, v.type,
    v.commit_hash, v.commit_message, v.config, v.created_by_user_id, v.created_at
  from evaluator_versions v join evaluators e on e.id = v.evaluator_id`;

export function toEvaluator(r: EvaluatorRow): Evaluator {
  return {
    id: r.id,
    spaceId: r.space_id,
    name: r.name,
    ...(r.description === null ? {} : { description: r.description }),
    type: r.type,
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export function toEvaluatorVersion(r: EvaluatorVersionRow): EvaluatorVersion {
  return {
    id: r.id,
    evaluatorId: r.evaluator_id,
    type: r.type,
    commitHash: r.commit_hash,
    content: {
      commitMessage: r.commit_message,
      configKind: r.type,
      configJson: JSON.stringify(r.config),
    },
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
  };
}

export const findEvaluator = (pool: Pool, id: string) =>
  rowById<EvaluatorRow>(pool, "evaluators", EVALUATOR_COLUMNS, id);

/** The first version matching `where` (over `v`, the versions, and `e`, their evaluators). */
export const findEvaluatorVersion = (pool: Pool, where: string, values: string[]) =>
  firstWhere<EvaluatorVersionRow>(
    pool,
    "get evaluator version",
    EVALUATOR_VERSION_SELECT,
    where,
    values,
  );
