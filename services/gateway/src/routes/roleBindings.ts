import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import { IdentityServiceService, type RoleBinding } from "@argus/proto/identity/v1";
import type { Backend } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { pathId } from "./params.ts";
import { listPage } from "./listPage.ts";

const RESOURCE_ID_TYPE = {
  SPACE: "Space",
  PROJECT: "Project",
  ORGANIZATION: "Organization",
} as const;

/** A service account's binding shows its subject as a ServiceAccount id in `user_id`. */
const toPublicRoleBinding = (b: RoleBinding) => ({
  id: encodeId("RoleBinding", b.id),
  role_id: encodeId("Role", b.roleId),
  user_id: encodeId(b.subjectType === "USER" ? "User" : "ServiceAccount", b.subjectId),
  resource_type: b.resourceType,
  resource_id: encodeId(
    RESOURCE_ID_TYPE[b.resourceType as keyof typeof RESOURCE_ID_TYPE] ?? "Space",
    b.resourceId,
  ),
  created_at: b.createdAt,
  updated_at: b.updatedAt,
});

function bindingPathId(raw: string | undefined): string {
  const id = pathId("RoleBinding", raw, "role binding");
  return id;
}

/** A body id of the wrong type is a request error (422, as the public API lists). */
function bodyId(type: string, raw: string, field: string): string {
  const id = decodeId(type, raw);
  if (id === null) throw new DomainError("unprocessable-entity", `${field} is not a ${type} id`);
  return id;
}

/**
 * `user_id` names a user or, as the Python SDK documents for SERVICE keys, a key's bot user
 * (its service account: `bot_user.id`). Null when it is neither.
 */
function subjectOf(
  raw: string,
): { subjectType: "USER" | "SERVICE_ACCOUNT"; subjectId: string } | null {
  const user = decodeId("User", raw);
  if (user !== null) return { subjectType: "USER", subjectId: user };
  const account = decodeId("ServiceAccount", raw);
  return account === null ? null : { subjectType: "SERVICE_ACCOUNT", subjectId: account };
}

export function roleBindingHandlers(identity: Backend): ResourceHandlers<"role-bindings"> {
  return {
    async list_role_bindings(req) {
      const userId = req.query.user_id;
      const subject = userId === undefined ? { subjectId: "" } : subjectOf(userId);
      // As for an id of no user of the account (the public API's 404).
      if (subject === null) throw notFound("user");
      const res = await identity.call(
        IdentityServiceService.listRoleBindings,
        {
          page: req.page,
          resourceType: req.query.resource_type,
          userId: subject.subjectId,
        },
        req,
      );
      return listPage("role_bindings", res.roleBindings.map(toPublicRoleBinding), res.page);
    },

    async create_role_binding(req) {
      const body = req.body;
      const subject = subjectOf(body.user_id);
      if (subject === null)
        throw new DomainError("unprocessable-entity", "user_id is not a User id");
      const binding = await identity.call(
        IdentityServiceService.createRoleBinding,
        {
          roleId: bodyId("Role", body.role_id, "role_id"),
          ...subject,
          resourceType: body.resource_type,
          resourceId: bodyId(RESOURCE_ID_TYPE[body.resource_type], body.resource_id, "resource_id"),
        },
        req,
      );
      return { status: 201, body: toPublicRoleBinding(binding) };
    },

    async get_role_binding(req) {
      const binding = await identity.call(
        IdentityServiceService.getRoleBinding,
        { id: bindingPathId(req.params.binding_id) },
        req,
      );
      return { status: 200, body: toPublicRoleBinding(binding) };
    },

    async update_role_binding(req) {
      const body = req.body;
      const binding = await identity.call(
        IdentityServiceService.updateRoleBinding,
        {
          id: bindingPathId(req.params.binding_id),
          roleId: bodyId("Role", body.role_id, "role_id"),
        },
        req,
      );
      return { status: 200, body: toPublicRoleBinding(binding) };
    },

    delete_role_binding: (req) =>
      noContent(
        identity.call(
          IdentityServiceService.deleteRoleBinding,
          { id: bindingPathId(req.params.binding_id) },
          req,
        ),
      ),
  };
}
