import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import { IdentityServiceService, type Space } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import type { Handler } from "../http.ts";

interface CreateSpaceBody {
  name: string;
  organization_id: string;
  description?: string;
  is_private?: boolean;
}

export function toPublicSpace(s: Space) {
  return {
    id: encodeId("Space", s.id),
    name: s.name,
    description: s.description,
    created_at: s.createdAt,
    is_private: s.isPrivate,
  };
}

export function spaceHandlers(identity: Backend): Record<string, Handler> {
  return {
    async list_spaces(req) {
      const orgId = req.query.org_id as string | undefined;
      const organizationId = orgId === undefined ? "" : decodeId("Organization", orgId);
      if (organizationId === null) throw notFound("organization");
      const res = await identity.call(
        IdentityServiceService.listSpaces,
        { page: req.page, name: (req.query.name as string | undefined) ?? "", organizationId },
        req,
        { idempotent: true },
      );
      return {
        status: 200,
        body: { spaces: res.spaces.map(toPublicSpace) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_space(req) {
      const body = req.body as CreateSpaceBody;
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
      const id = decodeId("Space", req.params.space_id ?? "");
      if (id === null) throw notFound("space");
      const space = await identity.call(IdentityServiceService.getSpace, { id }, req, {
        idempotent: true,
      });
      return { status: 200, body: toPublicSpace(space) };
    },
  };
}
