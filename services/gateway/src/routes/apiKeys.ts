import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import {
  ApiKeyServiceService,
  type ApiKey,
  type BotUser,
  type OrganizationAssignment,
} from "@argus/proto/identity/v1/api_keys";
import type { Backend } from "../backend.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type Body, type ResourceHandlers } from "../http/handler.ts";
import { pathId, utcText } from "./params.ts";

type RoleBody = components["schemas"]["ServiceKeyRole"];

function toPublicApiKey(k: ApiKey) {
  return {
    id: encodeId("ApiKey", k.id),
    name: k.name,
    description: k.description,
    key_type: k.keyType,
    status: k.status,
    redacted_key: k.redactedKey,
    created_by_user_id: encodeId("User", k.createdByUserId),
    created_at: k.createdAt,
    ...(k.expiresAt ? { expires_at: k.expiresAt } : {}),
    ...(k.lastUsedAt ? { last_used_at: k.lastUsedAt } : {}),
  };
}

/** Role objects carry the `type` discriminator the Python SDK dispatches on. */
const predefined = (name: string) => ({ type: "PREDEFINED" as const, name });

function toPublicBotUser(b: BotUser) {
  return {
    id: encodeId("ServiceAccount", b.id),
    name: b.name,
    account_role: predefined(b.accountRole),
    organizations: b.organizations.map((o) => ({
      org_id: encodeId("Organization", o.organizationId),
      role: predefined(o.role),
      spaces: o.spaces.map((s) => ({
        space_id: encodeId("Space", s.spaceId),
        role: s.customRoleId
          ? {
              type: "CUSTOM" as const,
              id: encodeId("Role", s.customRoleId),
              name: s.customRoleName,
            }
          : predefined(s.role),
      })),
    })),
  };
}

/**
 * Predefined roles by name. A custom role is a 422 where the public API does not take one yet
 * (a service key's account and organization roles); in a space it is the role's id.
 */
function roleOf(r: RoleBody | undefined, where: string): string {
  if (!r) return "";
  if (r.type === "CUSTOM" || r.id !== undefined)
    throw new DomainError(
      "unprocessable-entity",
      `custom roles are not supported as a service key's ${where} role`,
    );
  return r.name ?? "";
}

function spaceRoleOf(r: RoleBody | undefined): { role: string; customRoleId: string } {
  if (r?.type === "CUSTOM" || r?.id !== undefined)
    return { role: "", customRoleId: bodyId("Role", r?.id ?? "", "role.id") };
  return { role: roleOf(r, "space"), customRoleId: "" };
}

/** Ids in the body that are not ids of the right type are 422 (the request is unprocessable). */
function bodyId(type: string, id: string, field: string): string {
  const uuid = decodeId(type, id);
  if (uuid === null) throw new DomainError("unprocessable-entity", `${field} is not a ${type} id`);
  return uuid;
}

function assignments(body: Body<"create_api_key">): OrganizationAssignment[] {
  return (body.organizations ?? []).map((o) => ({
    organizationId: bodyId("Organization", o.org_id, "org_id"),
    role: roleOf(o.role, "organization"),
    spaces: o.spaces.map((s) => ({
      spaceId: bodyId("Space", s.space_id, "space_id"),
      ...spaceRoleOf(s.role),
      customRoleName: "",
    })),
  }));
}

function queryId(type: string, value: unknown): string {
  if (value === undefined) return "";
  const uuid = decodeId(type, value as string);
  if (uuid === null) throw notFound(type === "Space" ? "space" : "user");
  return uuid;
}

export function apiKeyHandlers(identity: Backend): ResourceHandlers<"api-keys"> {
  return {
    async list_api_keys(req) {
      const res = await identity.call(
        ApiKeyServiceService.listApiKeys,
        {
          page: req.page,
          keyType: req.query.key_type ?? "",
          status: req.query.status ?? "",
          spaceId: queryId("Space", req.query.space_id),
          userId: queryId("User", req.query.user_id),
        },
        req,
      );
      return {
        status: 200,
        body: {
          // A SERVICE key carries its bot user (the public API's ServiceApiKey).
          api_keys: res.apiKeys.map((k) => ({
            ...toPublicApiKey(k),
            ...(k.botUser ? { bot_user: toPublicBotUser(k.botUser) } : {}),
          })),
        },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_api_key(req) {
      const body = req.body;
      if (body.key_type === "SERVICE" && !body.organizations)
        throw new DomainError(
          "unprocessable-entity",
          "a SERVICE key needs organizations with spaces",
        );
      if (body.key_type === "USER" && (body.organizations || body.account_role))
        throw new DomainError(
          "unprocessable-entity",
          "organizations and account_role apply to SERVICE keys only",
        );
      const res = await identity.call(
        ApiKeyServiceService.createApiKey,
        {
          keyType: body.key_type,
          name: body.name,
          description: body.description ?? "",
          expiresAt: utcText(body.expires_at, "expires_at"),
          accountRole: roleOf(body.account_role, "account"),
          organizations: assignments(body),
        },
        req,
      );
      return {
        status: 201,
        body: {
          ...toPublicApiKey(res.key!),
          key: res.secret,
          ...(res.botUser ? { bot_user: toPublicBotUser(res.botUser) } : {}),
        },
      };
    },

    async refresh_api_key(req) {
      const id = pathId("ApiKey", req.params.api_key_id, "API key");
      const body = req.body ?? {};
      const res = await identity.call(
        ApiKeyServiceService.refreshApiKey,
        {
          id,
          expiresAt: utcText(body.expires_at, "expires_at"),
          gracePeriodSeconds: body.grace_period_seconds ?? 0,
        },
        req,
      );
      return { status: 200, body: { ...toPublicApiKey(res.key!), key: res.secret } };
    },

    async revoke_api_key(req) {
      const id = pathId("ApiKey", req.params.api_key_id, "API key");
      return noContent(identity.call(ApiKeyServiceService.revokeApiKey, { id }, req));
    },
  };
}
