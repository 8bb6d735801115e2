import {
  DomainError,
  actorMetadata,
  isAccountAdmin,
  notFound,
  requireAccountAdmin,
  type CallContext,
} from "@argus/platform";
import type { PoolClient } from "pg";
import type {
  CreateResourceRestrictionRequest,
  DeleteResourceRestrictionRequest,
  Done,
  ResourceRestriction,
} from "@argus/proto/identity/v1";
import { streamId, type RestrictionType } from "@argus/contracts";
import {
  RESTRICT_PERMISSION,
  RESTRICTION_TYPES,
  restrictionDecider,
  type RestrictionState,
} from "./restrictionDecider.ts";
import { loadSpaceFor } from "../spaces/spaceAccess.ts";
import type { IdentityDeps } from "../deps.ts";

/**
 * Who may restrict or lift: an account admin, or a caller with the type's *_RESTRICT
 * permission in the resource's space (as the public API says: space admins, or users with the
 * permission). Identity does not know which space a project, dashboard or prompt is in: the
 * gateway reads the resource from its owning service as the caller and names its space, and
 * the restriction keeps it for its lifting. One kept without a space (made before spaces were
 * kept) is an account admin's alone.
 */
async function requireRestrictRight(
  client: PoolClient,
  ctx: CallContext,
  spaceId: string | undefined,
  type: RestrictionType,
  what: string,
): Promise<void> {
  if (isAccountAdmin(ctx.principal)) return;
  if (!spaceId) return requireAccountAdmin(ctx.principal, what);
  await loadSpaceFor(client, ctx, spaceId, RESTRICT_PERMISSION[type], what);
}

/**
 * A restricted project is reachable only through explicit PROJECT role bindings; the service
 * owning projects enforces it (ARCHITECTURE §8).
 */
export function restrictionCommands({ commands, clock }: Pick<IdentityDeps, "commands" | "clock">) {
  return {
    /** Restricting an already restricted project is a no-op (the public API answers 200). */
    async createResourceRestriction(
      req: CreateResourceRestrictionRequest,
      ctx: CallContext,
    ): Promise<ResourceRestriction> {
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
          build: async (_state: RestrictionState, client: PoolClient) => {
            await requireRestrictRight(
              client,
              ctx,
              req.spaceId,
              resourceType,
              "restricting resources",
            );
            return {
              type: "RestrictProject" as const,
              projectId: req.resourceId,
              resourceType,
              accountId: ctx.principal.accountId,
              spaceId: req.spaceId,
              now: clock.now(),
            };
          },
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
      const accountId = ctx.principal.accountId;
      await commands.handle(
        streamId("restriction", req.resourceId),
        restrictionDecider,
        {
          build: async (state: RestrictionState, client: PoolClient) => {
            if (state.status !== "restricted" || state.accountId !== accountId)
              throw notFound("resource restriction");
            await requireRestrictRight(
              client,
              ctx,
              state.spaceId,
              state.resourceType,
              "lifting restrictions",
            );
            return { type: "LiftRestriction" as const, accountId };
          },
        },
        { ...actorMetadata(ctx), project_id: req.resourceId },
      );
      return {};
    },
  };
}
