import { decodeId, encodeId, notFound } from "@argus/platform";
import { IdentityServiceService, type Organization } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import type { Handler } from "../http.ts";

export const toPublicOrganization = (o: Organization) => ({
  id: encodeId("Organization", o.id),
  name: o.name,
  description: o.description,
  created_at: o.createdAt,
});

export function organizationHandlers(identity: Backend): Record<string, Handler> {
  return {
    async create_organization(req) {
      const body = req.body as { name: string; description?: string };
      const org = await identity.call(
        IdentityServiceService.createOrganization,
        { name: body.name, description: body.description ?? "" },
        req,
      );
      return { status: 201, body: toPublicOrganization(org) };
    },

    async list_organizations(req) {
      const res = await identity.call(
        IdentityServiceService.listOrganizations,
        { page: req.page, name: (req.query.name as string | undefined) ?? "" },
        req,
        { idempotent: true },
      );
      return {
        status: 200,
        body: { organizations: res.organizations.map(toPublicOrganization) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async get_organization(req) {
      const id = decodeId("Organization", req.params.org_id ?? "");
      if (id === null) throw notFound("organization");
      const org = await identity.call(IdentityServiceService.getOrganization, { id }, req, {
        idempotent: true,
      });
      return { status: 200, body: toPublicOrganization(org) };
    },
  };
}
