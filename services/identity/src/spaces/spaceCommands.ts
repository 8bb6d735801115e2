import {
  DomainError,
  actorMetadata,
  isAccountAdmin,
  notFound,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import type {
  CreateSpaceRequest,
  DeleteSpaceRequest,
  Done,
  Space,
  UpdateSpaceRequest,
} from "@argus/proto/identity/v1";
import { streamId, type SpaceSettings } from "@argus/contracts";
import { spaceDecider, type SpaceCommand } from "./spaceDecider.ts";
import { toSpace } from "./spaceRows.ts";
import { loadOrganization } from "../organizations/organizationQueries.ts";
import { loadSpaceFor, loadVisibleSpace } from "./spaceAccess.ts";
import type { IdentityDeps } from "../deps.ts";
import { dataOf } from "../shared/decided.ts";
import { hold } from "../shared/holds.ts";

const spaceNameConflict = (name: string | undefined) => ({
  spaces_name_per_org: `a space named ${JSON.stringify(name)} already exists in this organization`,
});

export function spaceCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async createSpace(req: CreateSpaceRequest, ctx: CallContext): Promise<Space> {
      const p = ctx.principal;
      await loadOrganization(pool, ctx, req.organizationId);
      if (!isAccountAdmin(p))
        throw new DomainError(
          "access-forbidden",
          "creating spaces requires the account admin role",
        );
      const id = uuidv7();
      const command: SpaceCommand = {
        type: "CreateSpace",
        id,
        accountId: p.accountId,
        organizationId: req.organizationId,
        name: req.name,
        description: req.description,
        isPrivate: req.isPrivate,
        now: clock.now(),
      };
      const { events } = await commands.handle(
        streamId("space", id),
        spaceDecider,
        {
          // An organization deleted meanwhile is 404; one being deleted waits for this space.
          build: async (_state, client) => {
            if (!(await hold(client, "organization", req.organizationId, p.accountId)))
              throw notFound("organization");
            return command;
          },
        },
        { ...actorMetadata(ctx), organization_id: req.organizationId, space_id: id },
        { conflicts: spaceNameConflict(req.name) },
      );
      const d = dataOf(events, "SpaceCreated");
      return toSpace({ ...d, created_at: new Date(d.created_at) });
    },

    async updateSpace(req: UpdateSpaceRequest, ctx: CallContext): Promise<Space> {
      const row = await loadSpaceFor(pool, ctx, req.id, "SPACE_UPDATE", "updating the space");
      await commands.handle(
        streamId("space", row.id),
        spaceDecider,
        {
          type: "UpdateSpace",
          name: req.name,
          description: req.description,
          isPrivate: req.isPrivate,
          ...(req.settingsJson === undefined
            ? {}
            : { settings: JSON.parse(req.settingsJson) as SpaceSettings }),
          now: clock.now(),
        },
        { ...actorMetadata(ctx), organization_id: row.organization_id, space_id: row.id },
        { conflicts: spaceNameConflict(req.name) },
      );
      return toSpace(await loadVisibleSpace(pool, ctx, row.id));
    },

    async deleteSpace(req: DeleteSpaceRequest, ctx: CallContext): Promise<Done> {
      const row = await loadSpaceFor(pool, ctx, req.id, "SPACE_DELETE", "deleting the space");
      await commands.handle(
        streamId("space", row.id),
        spaceDecider,
        { type: "DeleteSpace", now: clock.now() },
        { ...actorMetadata(ctx), organization_id: row.organization_id, space_id: row.id },
      );
      return {};
    },
  };
}
