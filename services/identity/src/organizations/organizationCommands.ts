import { actorMetadata, requireAccountAdmin, uuidv7, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  CreateOrganizationRequest,
  DeleteOrganizationRequest,
  Done,
  Organization,
  UpdateOrganizationRequest,
} from "@argus/proto/identity/v1";
import { streamId } from "@argus/contracts";
import { organizationDecider } from "./organizationDecider.ts";
import { spaceDecider } from "../spaces/spaceDecider.ts";
import { toOrganization } from "./organizationRows.ts";
import { loadOrganization, loadOrganizationFor } from "./organizationQueries.ts";
import type { IdentityDeps } from "../deps.ts";
import { dataOf } from "../shared/decided.ts";

const nameConflict = (name: string | undefined) => ({
  organizations_name_per_account: `an organization named ${JSON.stringify(name)} already exists`,
});

const SPACE_CREATED = {
  spaces_organization_id_fkey: "a space was created in the organization meanwhile; retry",
};

export function organizationCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async createOrganization(
      req: CreateOrganizationRequest,
      ctx: CallContext,
    ): Promise<Organization> {
      requireAccountAdmin(ctx.principal, "creating organizations");
      const id = uuidv7();
      const { events } = await commands.handle(
        streamId("organization", id),
        organizationDecider,
        {
          type: "CreateOrganization",
          id,
          accountId: ctx.principal.accountId,
          name: req.name,
          description: req.description,
          now: clock.now(),
        },
        { ...actorMetadata(ctx), organization_id: id },
        { conflicts: nameConflict(req.name) },
      );
      const d = dataOf(events, "OrganizationCreated");
      return toOrganization({ ...d, created_at: new Date(d.created_at) });
    },

    async updateOrganization(
      req: UpdateOrganizationRequest,
      ctx: CallContext,
    ): Promise<Organization> {
      const row = await loadOrganizationFor(pool, ctx, req.id, "updating organizations");
      await commands.handle(
        streamId("organization", row.id),
        organizationDecider,
        {
          type: "UpdateOrganization",
          name: req.name,
          description: req.description,
          now: clock.now(),
        },
        { ...actorMetadata(ctx), organization_id: row.id },
        { conflicts: nameConflict(req.name) },
      );
      return toOrganization(await loadOrganization(pool, ctx, row.id));
    },

    /** Each space's SpaceDeleted goes on the space's own stream, in the same transaction. */
    async deleteOrganization(req: DeleteOrganizationRequest, ctx: CallContext): Promise<Done> {
      const row = await loadOrganizationFor(pool, ctx, req.id, "deleting organizations");
      const now = clock.now();
      const metadata = { ...actorMetadata(ctx), organization_id: row.id };
      // A space created meanwhile was listed (committed before) or keeps the organization's
      // row until it commits, and the row's delete then fails on it: 409, retry.
      await commands.transact(
        async (scope) => {
          const spaces = await tracedQuery<{ id: string }>(
            scope.client,
            "organization spaces",
            "select id from spaces where organization_id = $1 order by id",
            [row.id],
          );
          for (const s of spaces.rows)
            await scope.decide(
              streamId("space", s.id),
              spaceDecider,
              { type: "DeleteSpace", now, withOrganization: true },
              { ...metadata, space_id: s.id },
            );
          await scope.decide(
            streamId("organization", row.id),
            organizationDecider,
            { type: "DeleteOrganization", now },
            metadata,
          );
        },
        { conflicts: SPACE_CREATED },
      );
      return {};
    },
  };
}
