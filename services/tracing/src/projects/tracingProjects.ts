import type { Client } from "@grpc/grpc-js";
import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { ownCall, type CallContext, type CallCredential, callPeer } from "@argus/platform";
import {
  ProjectDirectoryService,
  type DirectoryProject,
} from "@argus/proto/catalog/v1/project_directory";
import { isUuid } from "@argus/spaces";

/** Where a project lives: what authorizing its spans needs. */
export interface ProjectPlace {
  id: string;
  accountId: string;
  spaceId: string;
  name: string;
}

/** The catalog's projects, as spans need them. */
export interface Projects {
  /** The project with this id in the caller's account, or undefined. */
  byId(ctx: CallContext, id: string): Promise<ProjectPlace | undefined>;
  /**
   * The space's project of this name in the caller's account, from the copy (every project
   * that received spans is in it), or undefined.
   */
  byName(ctx: CallContext, spaceId: string, name: string): Promise<ProjectPlace | undefined>;
  /** The space's project of this name, created when there is none (OTLP ingestion). */
  ensure(ctx: CallContext, spaceId: string, name: string): Promise<ProjectPlace>;
}

interface ProjectRow {
  id: string;
  account_id: string;
  space_id: string;
  name: string;
}

const placeOf = (r: ProjectRow): ProjectPlace => ({
  id: r.id,
  accountId: r.account_id,
  spaceId: r.space_id,
  name: r.name,
});

const fromDirectory = (p: DirectoryProject): ProjectRow => ({
  id: p.id,
  account_id: p.accountId,
  space_id: p.spaceId,
  name: p.name,
});

export async function remember(pool: Pool | PoolClient, r: ProjectRow): Promise<void> {
  await tracedQuery(
    pool,
    "remember project",
    `insert into projects (id, account_id, space_id, name) values ($1, $2, $3, $4)
     on conflict (id) do update set name = excluded.name`,
    [r.id, r.account_id, r.space_id, r.name],
  );
}

/**
 * The service's copy of the catalog's projects first (fed by `tracing-projects`), the
 * catalog's ProjectDirectory when the copy has not heard of one yet (asked as the tracing
 * service itself: it authorizes its callers on the answer).
 */
export function catalogProjects(channel: Client, self: CallCredential, pool: Pool): Projects {
  const local = async (where: string, params: unknown[]) =>
    (
      await tracedQuery<ProjectRow>(
        pool,
        "project",
        `select id, account_id, space_id, name from projects where ${where}`,
        params,
      )
    ).rows[0];
  return {
    async byId(ctx, id) {
      if (!isUuid(id)) return undefined;
      const accountId = ctx.principal.accountId;
      const known = await local("id = $1 and account_id = $2", [id, accountId]);
      if (known) return placeOf(known);
      const { projects } = await callPeer(
        channel,
        ProjectDirectoryService.resolveProjects,
        { accountId, ids: [id] },
        ownCall(ctx, self),
      );
      const found = projects[0];
      if (!found) return undefined;
      await remember(pool, fromDirectory(found));
      return placeOf(fromDirectory(found));
    },

    async byName(ctx, spaceId, name) {
      if (!isUuid(spaceId)) return undefined;
      const known = await local("space_id = $1 and name = $2 and account_id = $3", [
        spaceId,
        name,
        ctx.principal.accountId,
      ]);
      return known && placeOf(known);
    },

    async ensure(ctx, spaceId, name) {
      const p = ctx.principal;
      const known = await local("space_id = $1 and name = $2 and account_id = $3", [
        spaceId,
        name,
        p.accountId,
      ]);
      if (known) return placeOf(known);
      const project = await callPeer(
        channel,
        ProjectDirectoryService.ensureProject,
        {
          accountId: p.accountId,
          spaceId,
          name,
          actorUserId: p.userId,
          actorServiceAccountId: p.serviceAccountId,
          apiKeyId: p.apiKeyId,
        },
        ownCall(ctx, self),
      );
      await remember(pool, fromDirectory(project));
      return placeOf(fromDirectory(project));
    },
  };
}

/**
 * The project of the account, from the copy: the task runner's and the catalog's look-ups on
 * their own behalf name the account themselves.
 */
export async function projectOfAccount(
  pool: Pool,
  accountId: string,
  projectId: string,
): Promise<{ id: string; space_id: string } | undefined> {
  if (!isUuid(accountId) || !isUuid(projectId)) return undefined;
  const res = await tracedQuery<{ id: string; space_id: string }>(
    pool,
    "project of the account",
    "select id, space_id from projects where id = $1 and account_id = $2",
    [projectId, accountId],
  );
  return res.rows[0];
}
