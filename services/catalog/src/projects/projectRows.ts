import type { Pool } from "pg";
import type { Project } from "@argus/proto/catalog/v1/projects";
import { rowById, type SpaceRow } from "@argus/spaces";

export interface ProjectRow extends SpaceRow {
  name: string;
  created_at: Date;
  updated_at: Date;
}

export const PROJECT_COLUMNS = "id, account_id, space_id, name, created_at, updated_at";

export function toProject(r: ProjectRow): Project {
  return {
    id: r.id,
    spaceId: r.space_id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export const findProject = (pool: Pool, id: string) =>
  rowById<ProjectRow>(pool, "projects", PROJECT_COLUMNS, id);
