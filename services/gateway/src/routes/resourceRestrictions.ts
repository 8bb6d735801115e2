import { DomainError, decodeId, encodeId } from "@argus/platform";
import { IdentityServiceService, type ResourceRestriction } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import type { Handler } from "../http.ts";
import { pathId } from "./params.ts";

const toPublic = (r: ResourceRestriction) => ({
  resource_type: r.resourceType,
  resource_id: encodeId("Project", r.resourceId),
  created_at: r.createdAt,
});

export function resourceRestrictionHandlers(identity: Backend): Record<string, Handler> {
  return {
    async list_resource_restrictions(req) {
      const res = await identity.call(
        IdentityServiceService.listResourceRestrictions,
        { page: req.page },
        req,
      );
      return {
        status: 200,
        body: { resource_restrictions: res.resourceRestrictions.map(toPublic) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_resource_restriction(req) {
      const body = req.body as { resource_id: string };
      const resourceId = decodeId("Project", body.resource_id);
      if (resourceId === null)
        throw new DomainError("unprocessable-entity", "resource_id is not a project id");
      const r = await identity.call(
        IdentityServiceService.createResourceRestriction,
        { resourceId },
        req,
      );
      return { status: 200, body: toPublic(r) };
    },

    async delete_resource_restriction(req) {
      const resourceId = pathId("Project", req.params.resource_id, "resource restriction");
      await identity.call(IdentityServiceService.deleteResourceRestriction, { resourceId }, req);
      return { status: 204 };
    },
  };
}
