import { DomainError, actorMetadata, requireAccountAdmin, type CallContext } from "@argus/platform";
import type {
  CreateResourceRestrictionRequest,
  DeleteResourceRestrictionRequest,
  Done,
  ResourceRestriction,
} from "@argus/proto/identity/v1";
import { streamId, type RestrictionType } from "@argus/contracts";
import { RESTRICTION_TYPES, restrictionDecider } from "./restrictionDecider.ts";
import type { IdentityDeps } from "../deps.ts";

/**
 * A restricted project is reachable only through explicit PROJECT role bindings. Identity
 * does not know which space a project is in, so restrictions are managed by account admins;
 * the service owning projects enforces them (ARCHITECTURE §8).
 */
export function restrictionCommands({ commands, clock }: Pick<IdentityDeps, "commands" | "clock">) {
  return {
    /** Restricting an already restricted project is a no-op (the public API answers 200). */
    async createResourceRestriction(
      req: CreateResourceRestrictionRequest,
      ctx: CallContext,
    ): Promise<ResourceRestriction> {
      requireAccountAdmin(ctx.principal, "restricting resources");
      const resourceType = (req.resourceType || "PROJECT") as RestrictionType;
      if (!RESTRICTION_TYPES.includes(resourceType))
        throw new DomainError(
          "invalid-request",
          "resource_type must be PROJECT, DASHBOARD or PROMPT",
        );
      const { state } = await commands.handle(
        streamId("restriction", req.resourceId),
        restrictionDecider,
        {
          type: "RestrictProject",
          projectId: req.resourceId,
          resourceType,
          accountId: ctx.principal.accountId,
          now: clock.now(),
        },
        { ...actorMetadata(ctx), project_id: req.resourceId },
      );
      if (state.status !== "restricted") throw new Error("RestrictProject left no restriction");
      return {
        resourceType: state.resourceType,
        resourceId: req.resourceId,
        createdAt: state.createdAt,
      };
    },

    async deleteResourceRestriction(
      req: DeleteResourceRestrictionRequest,
      ctx: CallContext,
    ): Promise<Done> {
      requireAccountAdmin(ctx.principal, "lifting restrictions");
      await commands.handle(
        streamId("restriction", req.resourceId),
        restrictionDecider,
        { type: "LiftRestriction", accountId: ctx.principal.accountId },
        { ...actorMetadata(ctx), project_id: req.resourceId },
      );
      return {};
    },
  };
}
