import type { Client } from "@grpc/grpc-js";
import type { Pool, PoolClient } from "pg";
import { aggregateSubjects } from "@argus/contracts";
import { tracedQuery, type DurableConsumerOptions, type StoredEvent } from "@argus/eventstore";
import {
  callUnary,
  fromGrpcError,
  ownCall,
  type CallContext,
  type CallCredential,
} from "@argus/platform";
import {
  ProjectDirectoryService,
  type DirectoryProject,
} from "@argus/proto/catalog/v1/project_directory";
import { isUuid } from "@argus/spaces";
import type { SpanStore } from "../storage/spanStore.ts";

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

async function remember(pool: Pool | PoolClient, r: ProjectRow): Promise<void> {
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
      try {
        const { projects } = await callUnary(
          channel,
          ProjectDirectoryService.resolveProjects,
          { accountId, ids: [id] },
          ownCall(ctx, self),
        );
        const found = projects[0];
        if (!found) return undefined;
        await remember(pool, fromDirectory(found));
        return placeOf(fromDirectory(found));
      } catch (err) {
        throw fromGrpcError(err);
      }
    },

    async ensure(ctx, spaceId, name) {
      const p = ctx.principal;
      const known = await local("space_id = $1 and name = $2 and account_id = $3", [
        spaceId,
        name,
        p.accountId,
      ]);
      if (known) return placeOf(known);
      try {
        const project = await callUnary(
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
      } catch (err) {
        throw fromGrpcError(err);
      }
    },
  };
}

const field = (event: StoredEvent, key: string): string => {
  const v = ((event.data ?? {}) as Record<string, unknown>)[key];
  if (typeof v !== "string")
    throw new Error(`${event.type} ${event.eventId} does not have the contract's shape (${key})`);
  return v;
};

/** The catalog's project events keep the copy; a deleted project's spans go with it. */
export function projectsConsumer(o: {
  subjectRoot: string;
  store: SpanStore;
}): DurableConsumerOptions {
  return {
    durable: "tracing-projects",
    filterSubject: aggregateSubjects(o.subjectRoot, "catalog", "project"),
    concurrency: 4,
    handler: async (tx, event) => {
      if (event.type === "ProjectCreated")
        await remember(tx, {
          id: field(event, "id"),
          account_id: field(event, "account_id"),
          space_id: field(event, "space_id"),
          name: field(event, "name"),
        });
      else if (event.type === "ProjectUpdated")
        await tracedQuery(tx, "project renamed", "update projects set name = $2 where id = $1", [
          field(event, "id"),
          field(event, "name"),
        ]);
      else if (event.type === "ProjectDeleted") await o.store.dropProject(tx, field(event, "id"));
    },
  };
}
