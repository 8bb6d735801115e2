import { DomainError, encodeId, type ClientMethod } from "@argus/platform";
import { IdentityServiceService, type User } from "@argus/proto/identity/v1";
import type { Backend, Caller } from "../backend.ts";
import { noContent, type ApiResponse, type ResourceHandlers } from "../http/handler.ts";
import { type PathParam, pathId } from "./params.ts";
import { listPage } from "./listPage.ts";

const ROLE_TO_PUBLIC = {
  admin: "ADMIN",
  member: "MEMBER",
  member_ui_only: "MEMBER_UI_ONLY",
  annotator: "ANNOTATOR",
} as const;
const ROLE_FROM_PUBLIC = {
  ADMIN: "admin",
  MEMBER: "member",
  MEMBER_UI_ONLY: "member_ui_only",
  ANNOTATOR: "annotator",
} as const;

const toPublicUser = (u: User) => ({
  id: encodeId("User", u.id),
  name: u.name,
  email: u.email,
  created_at: u.createdAt,
  status: u.status,
  role: {
    type: "PREDEFINED",
    name: ROLE_TO_PUBLIC[u.accountRole as keyof typeof ROLE_TO_PUBLIC] ?? "MEMBER",
  },
  is_developer: u.isDeveloper,
});

function userPathId(raw: string | undefined): string {
  const id = pathId("User", raw, "user");
  return id;
}

export function userHandlers(identity: Backend): ResourceHandlers<"users"> {
  /** An operation on the path's user that answers nothing (204). */
  const onUser =
    <Res>(method: ClientMethod<{ id: string }, Res>) =>
    (req: Caller & PathParam<"user_id">): Promise<ApiResponse> =>
      noContent(identity.call(method, { id: userPathId(req.params.user_id) }, req));
  return {
    async list_users(req) {
      const statuses = req.query.status ?? [];
      const res = await identity.call(
        IdentityServiceService.listUsers,
        {
          page: req.page,
          email: req.query.email ?? "",
          statuses,
        },
        req,
      );
      return listPage("users", res.users.map(toPublicUser), res.page);
    },

    async create_user(req) {
      const body = req.body;
      const res = await identity.call(
        IdentityServiceService.createUser,
        {
          name: body.name,
          email: body.email,
          inviteMode: body.invite_mode,
          // Identity answers CUSTOM as the public API does (not yet supported, 422).
          accountRole: body.role.type === "CUSTOM" ? "custom" : ROLE_FROM_PUBLIC[body.role.name],
          isDeveloper: body.is_developer,
        },
        req,
      );
      // An invitation that is still valid is returned as it is: 200, not 201 (public API),
      // as a bare User. A created one says its invite mode and, for TEMPORARY_PASSWORD, the
      // generated password (answered this once).
      if (!res.created) return { status: 200, body: toPublicUser(res.user!) };
      return {
        status: 201,
        body: {
          ...toPublicUser(res.user!),
          invite_mode: res.inviteMode,
          ...(res.temporaryPassword === undefined
            ? {}
            : { temporary_password: res.temporaryPassword }),
        },
      };
    },

    async get_user(req) {
      const user = await identity.call(
        IdentityServiceService.getUser,
        { id: userPathId(req.params.user_id) },
        req,
      );
      return { status: 200, body: toPublicUser(user) };
    },

    async update_user(req) {
      const body = req.body;
      if (body.name === undefined && body.is_developer === undefined)
        throw new DomainError(
          "invalid-request",
          "at least one of name and is_developer is required",
        );
      const user = await identity.call(
        IdentityServiceService.updateUser,
        { id: userPathId(req.params.user_id), name: body.name, isDeveloper: body.is_developer },
        req,
      );
      return { status: 200, body: toPublicUser(user) };
    },

    delete_user: onUser(IdentityServiceService.deleteUser),

    reset_user_password: onUser(IdentityServiceService.resetUserPassword),

    resend_user_invitation: onUser(IdentityServiceService.resendUserInvitation),
  };
}
