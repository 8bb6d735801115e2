import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import { IdentityServiceService, type Space, type SpaceMembership } from "@argus/proto/identity/v1";
import { SPACE_SETTING_KEYS } from "@argus/contracts";
import type { Backend } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { memberOf, pathId, publicMemberRole } from "./params.ts";
import { listPage } from "./listPage.ts";

function toPublicSpace(s: Space) {
  return {
    id: encodeId("Space", s.id),
    organization_id: encodeId("Organization", s.organizationId),
    name: s.name,
    description: s.description,
    created_at: s.createdAt,
    is_private: s.isPrivate,
    ...(s.settingsJson ? (JSON.parse(s.settingsJson) as Record<string, unknown>) : {}),
  };
}

function spacePathId(raw: string | undefined): string {
  const id = pathId("Space", raw, "space");
  return id;
}

const toPublicSpaceMembership = (m: SpaceMembership) => ({
  id: encodeId("RoleBinding", m.id),
  user_id: encodeId("User", m.userId),
  space_id: encodeId("Space", m.spaceId),
  role: publicMemberRole(m),
});

export function spaceHandlers(identity: Backend): ResourceHandlers<"spaces"> {
  return {
    async list_spaces(req) {
      const orgId = req.query.org_id;
      const organizationId = orgId === undefined ? "" : decodeId("Organization", orgId);
      if (organizationId === null) throw notFound("organization");
      const res = await identity.call(
        IdentityServiceService.listSpaces,
        { page: req.page, name: req.query.name ?? "", organizationId },
        req,
      );
      return listPage("spaces", res.spaces.map(toPublicSpace), res.page);
    },

    async create_space(req) {
      const body = req.body;
      const organizationId = decodeId("Organization", body.organization_id);
      if (organizationId === null)
        throw new DomainError("invalid-request", "organization_id is not an organization id");
      const space = await identity.call(
        IdentityServiceService.createSpace,
        {
          organizationId,
          name: body.name,
          description: body.description ?? "",
          isPrivate: body.is_private ?? false,
        },
        req,
      );
      return { status: 201, body: toPublicSpace(space) };
    },

    async get_space(req) {
      const id = pathId("Space", req.params.space_id, "space");
      const space = await identity.call(IdentityServiceService.getSpace, { id }, req);
      return { status: 200, body: toPublicSpace(space) };
    },

    async update_space(req) {
      const body = req.body;
      const settings = Object.fromEntries(
        SPACE_SETTING_KEYS.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]),
      );
      const space = await identity.call(
        IdentityServiceService.updateSpace,
        {
          id: spacePathId(req.params.space_id),
          name: body.name,
          description: body.description === null ? "" : body.description,
          isPrivate: body.is_private,
          ...(Object.keys(settings).length > 0 ? { settingsJson: JSON.stringify(settings) } : {}),
        },
        req,
      );
      return { status: 200, body: toPublicSpace(space) };
    },

    delete_space: (req) =>
      noContent(
        identity.call(
          IdentityServiceService.deleteSpace,
          { id: spacePathId(req.params.space_id) },
          req,
        ),
      ),

    async add_space_user(req) {
      const m = await identity.call(
        IdentityServiceService.addSpaceUser,
        { spaceId: spacePathId(req.params.space_id), ...memberOf(req.body) },
        req,
      );
      return { status: 200, body: toPublicSpaceMembership(m) };
    },

    async remove_space_user(req) {
      const userId = pathId("User", req.params.user_id, "user");
      return noContent(
        identity.call(
          IdentityServiceService.removeSpaceUser,
          { spaceId: spacePathId(req.params.space_id), userId },
          req,
        ),
      );
    },
  };
}
