import {
  DomainError,
  actorMetadata,
  hasSpacePermission,
  notFound,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  DeleteOrganizationRequest,
  DeleteSpaceRequest,
  Done,
  Organization,
  Space,
  UpdateOrganizationRequest,
  UpdateSpaceRequest,
} from "@argus/proto/identity/v1";
import { requireAdmin } from "./access.ts";
import { commit } from "./commit.ts";
import {
  decideDeleteOrganization,
  decideUpdateOrganization,
} from "./domain/organizationLifecycle.ts";
import { streamId } from "@argus/contracts";
import { spaceDecider } from "./domain/space.ts";
import type { IdentityDeps } from "./service.ts";
import { loadVisibleSpace, type SpaceRow } from "./spaceAccess.ts";
import { spaceNameConflict } from "./spaces.ts";

const toSpace = (r: SpaceRow): Space => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  description: r.description,
  isPrivate: r.is_private,
  createdAt: r.created_at.toISOString(),
});

interface OrganizationRow {
  id: string;
  name: string;
  description: string;
  created_at: Date;
}

/** Update and delete of spaces and organizations (creation lives with the readers). */
export function lifecycleHandlers(deps: IdentityDeps) {
  const { pool, store, commands } = deps;

  async function loadOrganization(ctx: CallContext, id: string): Promise<OrganizationRow> {
    const res = await tracedQuery<OrganizationRow>(
      pool,
      "get organization",
      "select id, name, description, created_at from organizations where id = $1 and account_id = $2",
      [id, ctx.principal.accountId],
    );
    const row = res.rows[0];
    if (!row) throw notFound("organization");
    return row;
  }

  return {
    async updateSpace(req: UpdateSpaceRequest, ctx: CallContext): Promise<Space> {
      const row = await loadVisibleSpace(pool, ctx, req.id);
      if (!hasSpacePermission(ctx.principal, row.id, "SPACE_UPDATE"))
        throw new DomainError("access-forbidden", "updating the space requires SPACE_UPDATE");
      await commands.handle(
        streamId("space", row.id),
        spaceDecider,
        {
          type: "UpdateSpace",
          name: req.name,
          description: req.description,
          isPrivate: req.isPrivate,
          now: new Date(),
        },
        { ...actorMetadata(ctx), organization_id: row.organization_id, space_id: row.id },
        { conflicts: spaceNameConflict(req.name) },
      );
      return toSpace(await loadVisibleSpace(pool, ctx, row.id));
    },

    async deleteSpace(req: DeleteSpaceRequest, ctx: CallContext): Promise<Done> {
      const row = await loadVisibleSpace(pool, ctx, req.id);
      if (!hasSpacePermission(ctx.principal, row.id, "SPACE_DELETE"))
        throw new DomainError("access-forbidden", "deleting the space requires SPACE_DELETE");
      await commands.handle(
        streamId("space", row.id),
        spaceDecider,
        { type: "DeleteSpace", now: new Date() },
        { ...actorMetadata(ctx), organization_id: row.organization_id, space_id: row.id },
      );
      return {};
    },

    async updateOrganization(
      req: UpdateOrganizationRequest,
      ctx: CallContext,
    ): Promise<Organization> {
      const row = await loadOrganization(ctx, req.id);
      requireAdmin(ctx.principal, "updating organizations");
      const events = decideUpdateOrganization(
        { name: req.name, description: req.description, now: new Date() },
        row,
      );
      if (events.length > 0)
        await commit(
          store,
          `organization-${row.id}`,
          "any",
          events,
          { ...actorMetadata(ctx), organization_id: row.id },
          {
            organizations_name_per_account: `an organization named ${JSON.stringify(req.name)} already exists`,
          },
        );
      const after = await loadOrganization(ctx, row.id);
      return {
        id: after.id,
        name: after.name,
        description: after.description,
        createdAt: after.created_at.toISOString(),
      };
    },

    /** Each space's SpaceDeleted goes on the space's own stream, in the same transaction. */
    async deleteOrganization(req: DeleteOrganizationRequest, ctx: CallContext): Promise<Done> {
      const row = await loadOrganization(ctx, req.id);
      requireAdmin(ctx.principal, "deleting organizations");
      const now = new Date();
      const metadata = { ...actorMetadata(ctx), organization_id: row.id };
      await commands.transact(async (scope) => {
        const spaces = await tracedQuery<Pick<SpaceRow, "id">>(
          scope.client,
          "organization spaces",
          "select id from spaces where organization_id = $1",
          [row.id],
        );
        for (const s of spaces.rows)
          await scope.decide(
            streamId("space", s.id),
            spaceDecider,
            { type: "DeleteSpace", now },
            { ...metadata, space_id: s.id },
          );
        // TODO(service-kit): the organization's own decider.
        await scope.appendToSet(
          streamId("organization", row.id),
          decideDeleteOrganization({ now }, row),
          metadata,
        );
      });
      return {};
    },
  };
}
