import type { Decider } from "@argus/eventstore";
import type { AccountEvent } from "@argus/contracts";
import { DomainError } from "@argus/platform";

export type AccountState = { status: "none" } | { status: "live"; id: string };

interface CreateAccount {
  type: "CreateAccount";
  id: string;
  name: string;
  now: Date;
}

export type AccountCommand = CreateAccount;

function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case "CreateAccount":
      if (state.status !== "none")
        throw new DomainError("resource-conflict", "account already exists");
      return [
        {
          type: "AccountCreated",
          data: { id: command.id, name: command.name, created_at: command.now.toISOString() },
        },
      ];
    default: {
      const never: never = command.type;
      throw new Error(`unknown command ${String(never)}`);
    }
  }
}

function evolve(_state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case "AccountCreated":
      return { status: "live", id: event.data.id };
    default: {
      const never: never = event.type;
      throw new Error(`unknown event ${String(never)}`);
    }
  }
}

/** The account headless initialization creates: created once, never changed. */
export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
