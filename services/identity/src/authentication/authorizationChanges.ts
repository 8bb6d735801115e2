import type { CommandHandler, CommandScope, DomainEvent, EventMetadata } from "@argus/eventstore";
import type { IdentityEvent } from "@argus/contracts";
import type { PrincipalInvalidator } from "./principalInvalidation.ts";

/**
 * Whether an event may change what an existing key may do (its principal, or whether it
 * authenticates at all). A new event type must be decided here (a compile error otherwise);
 * when in doubt it is `true`: the price is one confirmed invalidation, the other mistake is a
 * gateway serving a stale principal.
 */
const CHANGES_AUTHORIZATION: Readonly<Record<IdentityEvent["type"], boolean>> = {
  // A new account has no keys yet.
  AccountCreated: false,
  OrganizationCreated: true,
  // Name and description only.
  OrganizationUpdated: false,
  OrganizationDeleted: true,
  SpaceCreated: true,
  SpaceUpdated: true,
  SpaceDeleted: true,
  UserCreated: true,
  UserUpdated: true,
  UserDeleted: true,
  // A new invitation token; the user's keys are untouched.
  UserInvitationResent: false,
  // A reset token; the password and the user's keys are unchanged until it is used.
  UserPasswordResetRequested: false,
  UserInvitationAccepted: true,
  RoleCreated: true,
  RoleUpdated: true,
  RoleDeleted: true,
  RoleBindingCreated: true,
  RoleBindingUpdated: true,
  RoleBindingDeleted: true,
  ResourceRestrictionCreated: true,
  ResourceRestrictionDeleted: true,
  ServiceAccountCreated: true,
  ServiceAccountRoleGranted: true,
  // A new key was never cached; its creator's principal does not change.
  ApiKeyCreated: false,
  ApiKeyRevoked: true,
  ApiKeyRefreshed: true,
};

const changesAuthorization = (e: DomainEvent): boolean =>
  (CHANGES_AUTHORIZATION as Readonly<Record<string, boolean>>)[e.type] ?? true;

/** "" (every account) when the events name none, or more than one. */
const ALL_ACCOUNTS = "";

/**
 * The account whose principals a committed command may have changed: undefined when none,
 * `ALL_ACCOUNTS` when its events carry no account (or several). A decision that appended
 * nothing counts: it may be the retry of one that committed but whose caller got an error
 * before every gateway confirmed, and its success must mean the same as a first one's.
 */
export function accountToInvalidate(
  appended: readonly { events: readonly DomainEvent[]; metadata: EventMetadata }[],
): string | undefined {
  const accounts = new Set<string>();
  for (const { events, metadata } of appended) {
    if (events.length > 0 && !events.some(changesAuthorization)) continue;
    const account = metadata.account_id;
    accounts.add(typeof account === "string" ? account : ALL_ACCOUNTS);
  }
  if (accounts.size === 0) return undefined;
  return accounts.size === 1 ? [...accounts][0]! : ALL_ACCOUNTS;
}

/** The scope, noting what each decision appended. */
function noting(
  scope: CommandScope,
  note: (events: readonly DomainEvent[], metadata: EventMetadata) => void,
): CommandScope {
  return {
    client: scope.client,
    async decide(streamId, decider, command, metadata) {
      const decision = await scope.decide(streamId, decider, command, metadata);
      note(decision.events, metadata);
      return decision;
    },
    async appendToSet(streamId, events, metadata) {
      await scope.appendToSet(streamId, events, metadata);
      note(events, metadata);
    },
    lockSet: (streamId) => scope.lockSet(streamId),
    lockRow: (table, id, columns) => scope.lockRow(table, id, columns),
    async appendLocked(lock, streamId, events, metadata) {
      await scope.appendLocked(lock, streamId, events, metadata);
      note(events, metadata);
    },
    async appendLockedLast(lock, streamId, events, metadata, checks) {
      await scope.appendLockedLast(lock, streamId, events, metadata, checks);
      note(events, metadata);
    },
    first: scope.first,
    firstAnswer: scope.firstAnswer,
  };
}

/**
 * Identity's commands, each followed by a confirmed invalidation when it may have changed
 * authorization (ARCHITECTURE §8): the command's RPC returns only once no gateway can serve a
 * principal cached before it. The epoch is bumped in the attempt that commits (the store may
 * retry), the gateways are told after the commit (a rolled-back command changed nothing).
 */
export function invalidatingCommands(
  inner: CommandHandler,
  invalidator: PrincipalInvalidator,
): CommandHandler {
  const transact: CommandHandler["transact"] = async (fn, options) => {
    let bumped: { account: string; epoch: number } | undefined;
    const result = await inner.transact(async (scope) => {
      const appended: { events: readonly DomainEvent[]; metadata: EventMetadata }[] = [];
      const out = await fn(
        noting(scope, (events, metadata) => appended.push({ events, metadata })),
      );
      const account = accountToInvalidate(appended);
      bumped =
        account === undefined
          ? undefined
          : { account, epoch: await invalidator.bump(scope.client) };
      return out;
    }, options);
    if (bumped) await invalidator.confirm(bumped.account, bumped.epoch);
    return result;
  };
  return {
    transact,
    handle: (streamId, decider, command, metadata, options) =>
      transact((scope) => scope.decide(streamId, decider, command, metadata), options),
  };
}
