import type { Decider } from "@argus/eventstore";
import type { RestrictionEvent, RestrictionType } from "@argus/contracts";
import { DomainError, notFound, unreachable, type Permission } from "@argus/platform";

export const RESTRICTION_TYPES: readonly RestrictionType[] = ["PROJECT", "DASHBOARD", "PROMPT"];

/** The permission, in the resource's space, to restrict or lift one of each type. */
export const RESTRICT_PERMISSION = {
  PROJECT: "PROJECT_RESTRICT",
  DASHBOARD: "DASHBOARD_RESTRICT",
  PROMPT: "PROMPT_RESTRICT",
} as const satisfies Record<RestrictionType, Permission>;

/** One stream per restricted resource. */
export type RestrictionState =
  | { status: "none" | "lifted" }
  | {
      status: "restricted";
      projectId: string;
      resourceType: RestrictionType;
      accountId: string;
      createdAt: string;
      /** Absent for a restriction made before spaces were kept. */
      spaceId?: string;
    };

export type RestrictionCommand =
  | {
      type: "RestrictProject";
      projectId: string;
      /** PROJECT, or the public API's DASHBOARD and PROMPT (stored, not enforced). */
      resourceType: RestrictionType;
      accountId: string;
      spaceId: string;
      now: Date;
    }
  | { type: "LiftRestriction"; accountId: string };

function decide(command: RestrictionCommand, state: RestrictionState): RestrictionEvent[] {
  const restricted = state.status === "restricted" ? state : undefined;
  const mine = restricted?.accountId === command.accountId;
  switch (command.type) {
    case "RestrictProject":
      // Restricting an already restricted project is a no-op (the public API answers 200).
      if (mine && restricted.resourceType === command.resourceType) return [];
      if (mine)
        throw new DomainError(
          "resource-conflict",
          `the id is restricted as a ${restricted.resourceType.toLowerCase()}`,
        );
      if (restricted)
        throw new DomainError("resource-conflict", "the project is restricted in another account");
      return [
        {
          type: "ResourceRestrictionCreated",
          data: {
            resource_id: command.projectId,
            account_id: command.accountId,
            resource_type: command.resourceType,
            created_at: command.now.toISOString(),
            ...(command.spaceId ? { space_id: command.spaceId } : {}),
          },
        },
      ];
    case "LiftRestriction":
      if (!restricted || !mine) throw notFound("resource restriction");
      return [
        {
          type: "ResourceRestrictionDeleted",
          data: { resource_id: restricted.projectId, resource_type: restricted.resourceType },
        },
      ];
    default:
      return unreachable(command);
  }
}

function evolve(_state: RestrictionState, event: RestrictionEvent): RestrictionState {
  switch (event.type) {
    case "ResourceRestrictionCreated": {
      const d = event.data;
      return {
        status: "restricted",
        projectId: d.resource_id,
        resourceType: d.resource_type,
        accountId: d.account_id,
        createdAt: d.created_at,
        ...(d.space_id ? { spaceId: d.space_id } : {}),
      };
    }
    case "ResourceRestrictionDeleted":
      return { status: "lifted" };
    default:
      return unreachable(event);
  }
}

/** A project's restriction: set (idempotently), lifted, set again. */
export const restrictionDecider: Decider<RestrictionState, RestrictionCommand, RestrictionEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
