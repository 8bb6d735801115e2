import type { Decider } from "@argus/eventstore";
import type { ServiceAccountEvent } from "@argus/contracts";
import { DomainError, unreachable } from "@argus/platform";

/** Predefined role names usable for a service account (ANNOTATOR is not, per the public API). */
export type ServiceRoleName = "ADMIN" | "MEMBER" | "READ_ONLY";

export interface RoleGrant {
  bindingId: string;
  roleId: string;
  resourceType: "ORGANIZATION" | "SPACE";
  resourceId: string;
}

export type ServiceAccountState = { status: "none" } | { status: "live"; id: string };

/** A SERVICE key's service account, created with its role grants (then its key, on its own stream). */
export interface CreateServiceAccount {
  type: "CreateServiceAccount";
  id: string;
  accountId: string;
  name: string;
  createdByUserId: string;
  /** ADMIN: the account admin role itself (only an account admin makes one). */
  accountRole: "ADMIN" | "MEMBER";
  grants: readonly RoleGrant[];
  now: Date;
}

export type ServiceAccountCommand = CreateServiceAccount;

function decide(c: ServiceAccountCommand, state: ServiceAccountState): ServiceAccountEvent[] {
  if (state.status !== "none")
    throw new DomainError("resource-conflict", "service account already exists");
  if (!c.grants.some((g) => g.resourceType === "SPACE"))
    throw new DomainError("unprocessable-entity", "a service key needs at least one space");
  const at = c.now.toISOString();
  return [
    {
      type: "ServiceAccountCreated",
      data: {
        id: c.id,
        account_id: c.accountId,
        name: c.name,
        created_by_user_id: c.createdByUserId,
        created_at: at,
        account_role: c.accountRole,
      },
    },
    ...c.grants.map((g): ServiceAccountEvent => ({
      type: "ServiceAccountRoleGranted",
      data: {
        id: g.bindingId,
        account_id: c.accountId,
        service_account_id: c.id,
        role_id: g.roleId,
        resource_type: g.resourceType,
        resource_id: g.resourceId,
        created_at: at,
      },
    })),
  ];
}

function evolve(state: ServiceAccountState, event: ServiceAccountEvent): ServiceAccountState {
  switch (event.type) {
    case "ServiceAccountCreated":
      return { status: "live", id: event.data.id };
    case "ServiceAccountRoleGranted":
      return state;
    default:
      return unreachable(event);
  }
}

/** A service account: created once, with its grants; later changes go through role bindings. */
export const serviceAccountDecider: Decider<
  ServiceAccountState,
  ServiceAccountCommand,
  ServiceAccountEvent
> = { initialState: { status: "none" }, evolve, decide };
