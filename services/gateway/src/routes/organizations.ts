import { encodeId } from "@argus/platform";
import { IdentityServiceService, type Organization } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { memberOf, pathId, publicMemberRole } from "./params.ts";
import { listPage } from "./listPage.ts";

const toPublicOrganization = (o: Organization) => ({
  id: encodeId("Organization", o.id),
  name: o.name,
  description: o.description,
  created_at: o.createdAt,
});

function organizationPathId(raw: string | undefined): string {
  const id = pathId("Organization", raw, "organization");
  return id;
}

export function organizationHandlers(identity: Backend): ResourceHandlers<"organizations"> {
  return {
    async create_organization(req) {
      const body = req.body;
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
        { page: req.page, name: req.query.name ?? "" },
        req,
      );
      return listPage("organizations", res.organizations.map(toPublicOrganization), res.page);
    },

    async get_organization(req) {
      const id = pathId("Organization", req.params.org_id, "organization");
      const org = await identity.call(IdentityServiceService.getOrganization, { id }, req);
      return { status: 200, body: toPublicOrganization(org) };
    },

    async update_organization(req) {
      const body = req.body;
      const org = await identity.call(
        IdentityServiceService.updateOrganization,
        {
          id: organizationPathId(req.params.org_id),
          name: body.name,
          description: body.description === null ? "" : body.description,
        },
        req,
      );
      return { status: 200, body: toPublicOrganization(org) };
    },

    delete_organization: (req) =>
      noContent(
        identity.call(
          IdentityServiceService.deleteOrganization,
          { id: organizationPathId(req.params.org_id) },
          req,
        ),
      ),

    async add_organization_user(req) {
      const m = await identity.call(
        IdentityServiceService.addOrganizationUser,
        { organizationId: organizationPathId(req.params.org_id), ...memberOf(req.body) },
        req,
      );
      return {
        status: 200,
        body: {
          id: encodeId("RoleBinding", m.id),
          user_id: encodeId("User", m.userId),
          organization_id: encodeId("Organization", m.organizationId),
          role: publicMemberRole(m),
        },
      };
    },

    async remove_organization_user(req) {
      const userId = pathId("User", req.params.user_id, "user");
      return noContent(
        identity.call(
          IdentityServiceService.removeOrganizationUser,
          { organizationId: organizationPathId(req.params.org_id), userId },
          req,
        ),
      );
    },
  };
}
