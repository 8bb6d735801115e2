import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { PromptServiceService } from "@argus/proto/catalog/v1/prompts";
import { IdentityServiceService, type ResourceRestriction } from "@argus/proto/identity/v1";
import { DashboardServiceService } from "@argus/proto/tracing/v1/dashboards";
import type { Backend, Caller } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

/**
 * The public id type of each restricted resource type. The public API's create request names
 * only the resource; its id says what it is. PROJECT restrictions are enforced, DASHBOARD and
 * PROMPT ones are stored and listed (README "Roles and permissions").
 */
const ID_TYPE = { PROJECT: "Project", DASHBOARD: "Dashboard", PROMPT: "Prompt" } as const;
type RestrictionType = keyof typeof ID_TYPE;

function resourceOf(publicId: string): { type: RestrictionType; id: string } | null {
  for (const type of Object.keys(ID_TYPE) as RestrictionType[]) {
    const id = decodeId(ID_TYPE[type], publicId);
    if (id !== null) return { type, id };
  }
  return null;
}

const toPublic = (r: ResourceRestriction) => ({
  resource_type: r.resourceType,
  resource_id: encodeId(ID_TYPE[r.resourceType as RestrictionType] ?? "Project", r.resourceId),
  created_at: r.createdAt,
});

/**
 * The space of the resource a restriction names, read from its owning service as the caller:
 * identity knows no project, dashboard or prompt. So a restriction names one of the caller's
 * account that exists and the caller sees (else that service's 404), and identity checks the
 * type's *_RESTRICT permission in that space (an account admin holds every one).
 */
async function spaceOf(
  owners: { catalog: Backend; tracing: Backend },
  { type, id }: { type: RestrictionType; id: string },
  req: Caller,
): Promise<string> {
  switch (type) {
    case "PROJECT":
      return (await owners.catalog.call(ProjectServiceService.getProject, { id }, req)).spaceId;
    case "DASHBOARD":
      return (await owners.tracing.call(DashboardServiceService.getDashboard, { id }, req)).spaceId;
    case "PROMPT": {
      const request = { id, versionId: "", label: "" };
      const res = await owners.catalog.call(PromptServiceService.getPrompt, request, req);
      return res.prompt?.spaceId ?? "";
    }
  }
}

export function resourceRestrictionHandlers(
  identity: Backend,
  owners: { catalog: Backend; tracing: Backend },
): ResourceHandlers<"resource-restrictions"> {
  return {
    async list_resource_restrictions(req) {
      const res = await identity.call(
        IdentityServiceService.listResourceRestrictions,
        { page: req.page, resourceType: req.query.resource_type ?? "" },
        req,
      );
      return listPage("resource_restrictions", res.resourceRestrictions.map(toPublic), res.page);
    },

    async create_resource_restriction(req) {
      const body = req.body;
      const resource = resourceOf(body.resource_id);
      if (resource === null)
        throw new DomainError(
          "unprocessable-entity",
          "resource_id is not a project, dashboard or prompt id",
        );
      const spaceId = await spaceOf(owners, resource, req);
      const r = await identity.call(
        IdentityServiceService.createResourceRestriction,
        { resourceId: resource.id, resourceType: resource.type, spaceId },
        req,
      );
      return { status: 200, body: toPublic(r) };
    },

    async delete_resource_restriction(req) {
      const resource = resourceOf(req.params.resource_id ?? "");
      if (resource === null) throw notFound("resource restriction");
      return noContent(
        identity.call(
          IdentityServiceService.deleteResourceRestriction,
          { resourceId: resource.id },
          req,
        ),
      );
    },
  };
}
