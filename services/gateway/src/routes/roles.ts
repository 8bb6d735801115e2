import { encodeId } from "@argus/platform";
import { IdentityServiceService, type Role } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { pathId } from "./params.ts";
import { listPage } from "./listPage.ts";

/**
 * Spec endpoint 14: `permissions` only for callers holding ROLE_READ; absent otherwise. A role
 * without a description (none given, or cleared with null) answers none, as the public API's.
 */
const toPublicRole = (r: Role) => ({
  id: encodeId("Role", r.id),
  name: r.name,
  ...(r.description === "" ? {} : { description: r.description }),
  ...(r.permissionsVisible ? { permissions: r.permissions } : {}),
  is_predefined: r.isPredefined,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

function rolePathId(raw: string | undefined): string {
  const id = pathId("Role", raw, "role");
  return id;
}

export function roleHandlers(identity: Backend): ResourceHandlers<"roles"> {
  return {
    async list_roles(req) {
      const res = await identity.call(
        IdentityServiceService.listRoles,
        { page: req.page, isPredefined: req.query.is_predefined },
        req,
      );
      return listPage("roles", res.roles.map(toPublicRole), res.page);
    },

    async create_role(req) {
      const body = req.body;
      const role = await identity.call(
        IdentityServiceService.createRole,
        { name: body.name, description: body.description ?? "", permissions: body.permissions },
        req,
      );
      return { status: 201, body: toPublicRole(role) };
    },

    async get_role(req) {
      const role = await identity.call(
        IdentityServiceService.getRole,
        { id: rolePathId(req.params.role_id) },
        req,
      );
      return { status: 200, body: toPublicRole(role) };
    },

    async update_role(req) {
      const body = req.body;
      const role = await identity.call(
        IdentityServiceService.updateRole,
        {
          id: rolePathId(req.params.role_id),
          name: body.name,
          // null clears the description, as omitting it keeps it.
          description: body.description === null ? "" : body.description,
          setPermissions: body.permissions !== undefined,
          permissions: body.permissions ?? [],
        },
        req,
      );
      return { status: 200, body: toPublicRole(role) };
    },

    delete_role: (req) =>
      noContent(
        identity.call(
          IdentityServiceService.deleteRole,
          { id: rolePathId(req.params.role_id) },
          req,
        ),
      ),
  };
}
