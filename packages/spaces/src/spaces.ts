// Shared by every service that owns space-scoped resources (the catalog, dataset, ...): spaces
// belong to identity, and each such service asks identity about them the same way, so it
// authorizes exactly as the others do. One implementation, in @argus/spaces.
import type { Client } from "@grpc/grpc-js";
import {
  DomainError,
  callUnary,
  fromGrpcError,
  notFound,
  onwardCall,
  type CallContext,
  type SpaceFacts,
  callPeer,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { isUuid } from "@argus/platform";

export interface SpaceRef extends SpaceFacts {
  name: string;
}

/** Identity's facts of a space (and of a project in it), as authorization needs them. */
export interface AccessFactsOf {
  space: SpaceFacts;
  projectRestricted: boolean;
}

/**
 * Spaces belong to identity; a service holding space-scoped resources only needs to know which
 * exist for the caller.
 */
export interface Spaces {
  /** The space when it exists in the caller's account and is visible to them; else 404. */
  get(ctx: CallContext, spaceId: string): Promise<SpaceRef>;
  /** Ids of the visible spaces whose name contains `name`, case-insensitively. */
  idsNamed(ctx: CallContext, name: string): Promise<string[]>;
  /**
   * The space's facts (and whether `projectId` is restricted) as identity has them now,
   * whoever may see the space; undefined when it is not in the caller's account.
   */
  facts(ctx: CallContext, spaceId: string, projectId?: string): Promise<AccessFactsOf | undefined>;
  /**
   * Identity's facts now for many spaces (those not in the caller's account left out) and
   * which of `projectIds` are restricted: one call for one page of a list.
   */
  factsOfMany(
    ctx: CallContext,
    spaceIds: readonly string[],
    projectIds: readonly string[],
  ): Promise<{ spaces: Map<string, SpaceFacts>; restricted: Set<string> }>;
  /**
   * Whether the calling service's copy (`space_facts`, fed by identity's events) holds the space
   * in the caller's account: no call, and it may lag identity by an event.
   */
  known(ctx: CallContext, spaceId: string): Promise<boolean>;
  /** Whether the organization is in the caller's account and visible to them. */
  seesOrganization(ctx: CallContext, organizationId: string): Promise<boolean>;
}

// A space_name filter matching more spaces than this is refused rather than half-applied.
const MAX_SPACES_PER_NAME_FILTER = 1000;

/**
 * Asks identity over gRPC, acting as the caller, so the facts are identity's as of now. A
 * space looked up to create in tops up the calling service's copy for lists (`space_facts`),
 * which identity's events otherwise feed: what is created in a space the events have not
 * reached yet is listed all the same. `pool` is the service's own pool: its connections'
 * search_path is the service's schema (platform `createPool`), so `space_facts` is that
 * schema's table (created by `accessFactsMigration`, or the catalog's migration 0027).
 */
export function identitySpaces(channel: Client, pool: Pool): Spaces {
  const opts = (ctx: CallContext) => onwardCall(ctx);
  const remember = (accountId: string, f: SpaceFacts) =>
    tracedQuery(
      pool,
      "remember space facts",
      `insert into space_facts (id, account_id, organization_id, is_private)
       values ($1, $2, $3, $4) on conflict (id) do nothing`,
      [f.id, accountId, f.organizationId, f.isPrivate],
    );
  return {
    async known(ctx, spaceId) {
      if (!isUuid(spaceId)) return false;
      const res = await tracedQuery(
        pool,
        "space known",
        "select 1 from space_facts where id = $1 and account_id = $2",
        [spaceId, ctx.principal.accountId],
      );
      return res.rowCount === 1;
    },
    async factsOfMany(ctx, spaceIds, projectIds) {
      const res = await callPeer(
        channel,
        IdentityServiceService.getAccessFactsBatch,
        { spaceIds: [...spaceIds], projectIds: [...projectIds] },
        opts(ctx),
      );
      return {
        spaces: new Map(
          res.spaces.map((f) => [
            f.spaceId,
            { id: f.spaceId, organizationId: f.organizationId, isPrivate: f.isPrivate },
          ]),
        ),
        restricted: new Set(res.restrictedProjectIds),
      };
    },
    async seesOrganization(ctx, organizationId) {
      try {
        await callUnary(
          channel,
          IdentityServiceService.getOrganization,
          { id: organizationId },
          opts(ctx),
        );
        return true;
      } catch (err) {
        const e = fromGrpcError(err);
        if (e.type === "resource-not-found") return false;
        throw e;
      }
    },
    async facts(ctx, spaceId, projectId) {
      try {
        const f = await callUnary(
          channel,
          IdentityServiceService.getAccessFacts,
          { spaceId, projectId: projectId ?? "" },
          opts(ctx),
        );
        const space = { id: f.spaceId, organizationId: f.organizationId, isPrivate: f.isPrivate };
        return { space, projectRestricted: f.projectRestricted };
      } catch (err) {
        const e = fromGrpcError(err);
        if (e.type === "resource-not-found") return undefined;
        throw e;
      }
    },
    async get(ctx, spaceId) {
      const s = await callUnary(
        channel,
        IdentityServiceService.getSpace,
        { id: spaceId },
        opts(ctx),
      ).catch((err: unknown) => {
        const e = fromGrpcError(err);
        throw e.type === "resource-not-found" ? notFound("space") : e;
      });
      const space = { id: s.id, organizationId: s.organizationId, isPrivate: s.isPrivate };
      // Outside the call's catch: the local database's loss is its own 503, not a peer's answer.
      await remember(ctx.principal.accountId, space);
      return { ...space, name: s.name };
    },
    async idsNamed(ctx, name) {
      const ids: string[] = [];
      let after = "";
      do {
        const res = await callPeer(
          channel,
          IdentityServiceService.listSpaces,
          { page: { limit: 100, after }, name, organizationId: "" },
          opts(ctx),
        );
        ids.push(...res.spaces.map((s) => s.id));
        after = res.page?.nextAfter ?? "";
      } while (after !== "" && ids.length < MAX_SPACES_PER_NAME_FILTER);
      if (after !== "")
        throw new DomainError("invalid-request", "space_name matches too many spaces; narrow it");
      return ids;
    },
  };
}
