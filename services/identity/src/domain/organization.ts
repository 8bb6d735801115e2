import { requireDescription, requireName } from "./rules.ts";

export const ORGANIZATION_NAME_MAX = 255;
export const ORGANIZATION_DESCRIPTION_MAX = 1000;

export interface OrganizationCreated {
  type: "OrganizationCreated";
  data: { id: string; account_id: string; name: string; description: string; created_at: string };
}

export type OrganizationEvent = OrganizationCreated;

export interface CreateOrganization {
  type: "CreateOrganization";
  id: string;
  accountId: string;
  name: string;
  description: string;
  now: Date;
}

export type OrganizationCommand = CreateOrganization;

/** Pure: uniqueness of the name per account is the projection's unique index, checked in the same transaction. */
export function decideOrganization(command: OrganizationCommand): OrganizationEvent[] {
  switch (command.type) {
    case "CreateOrganization":
      requireName(command.name, ORGANIZATION_NAME_MAX);
      requireDescription(command.description, ORGANIZATION_DESCRIPTION_MAX);
      return [
        {
          type: "OrganizationCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            name: command.name,
            description: command.description,
            created_at: command.now.toISOString(),
          },
        },
      ];
    default: {
      const never: never = command.type;
      throw new Error(`unknown command ${String(never)}`);
    }
  }
}
