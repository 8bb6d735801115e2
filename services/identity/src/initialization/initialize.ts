import { uuidv7, type Logger } from "@argus/platform";
import {
  tracedQuery,
  type CommandScope,
  type EventMetadata,
  type Queryable,
} from "@argus/eventstore";
import { streamId } from "@argus/contracts";
import { accountDecider } from "./accountDecider.ts";
import { apiKeyDecider } from "../apiKeys/apiKeyDecider.ts";
import { redactApiKey } from "../apiKeys/apiKeyFormat.ts";
import { planInitialization, type InitState, type InitStep } from "./initializationPlan.ts";
import { organizationDecider } from "../organizations/organizationDecider.ts";
import { hashApiKey } from "../shared/secretHash.ts";
import { spaceDecider } from "../spaces/spaceDecider.ts";
import { userDecider } from "../users/userDecider.ts";
import type { IdentityDeps } from "../deps.ts";

export interface InitEnv {
  orgName: string;
  spaceName: string;
  adminEmail: string;
  adminName: string;
  apiKey: string;
}

// Serializes concurrent first starts of several identity replicas.
const INIT_LOCK = 0x41726775; // "Argu"
const SYSTEM: EventMetadata = { actor: "system:init" };

/** Creates what headless initialization asks for and is missing; a no-op on restart. */
export async function initialize(
  deps: Pick<IdentityDeps, "commands" | "pepper" | "clock"> & { logger: Logger },
  env: InitEnv,
): Promise<void> {
  const keyHash = hashApiKey(env.apiKey, deps.pepper);
  const settings = { ...env, redactedKey: redactApiKey(env.apiKey) };
  const ids = {
    account: uuidv7(),
    organization: uuidv7(),
    space: uuidv7(),
    user: uuidv7(),
    apiKey: uuidv7(),
  };
  const decided = await deps.commands.transact(async (scope) => {
    await tracedQuery(scope.client, "init lock", "select pg_advisory_xact_lock($1)", [INIT_LOCK]);
    const state = await loadInitState(scope.client, env, keyHash);
    const steps = planInitialization(settings, state, ids, deps.clock.now());
    for (const step of steps) await decide(scope, step);
    if (!state.accountId)
      await tracedQuery(
        scope.client,
        "init installation",
        "insert into installation (account_id) values ($1)",
        [ids.account],
      );
    // The key's hash goes to its own table, never to an event (events are published).
    if (!state.keyExists)
      await tracedQuery(
        scope.client,
        "init api key secret",
        "insert into api_key_secrets (api_key_id, key_hash) values ($1, $2)",
        [ids.apiKey, keyHash],
      );
    return steps.length;
  });
  deps.logger.info(
    decided > 0 ? "headless initialization applied" : "headless initialization already done",
    { events: decided },
  );
}

/** Each step on its own stream, new (version 0), with its aggregate's decider. */
function decide(scope: CommandScope, s: InitStep): Promise<unknown> {
  const id = streamId(s.aggregate, s.id);
  switch (s.aggregate) {
    case "account":
      return scope.decide(id, accountDecider, s.command, SYSTEM);
    case "organization":
      return scope.decide(id, organizationDecider, s.command, SYSTEM);
    case "space":
      return scope.decide(id, spaceDecider, s.command, SYSTEM);
    case "user":
      return scope.decide(id, userDecider, s.command, SYSTEM);
    case "api_key":
      return scope.decide(id, apiKeyDecider, s.command, SYSTEM);
  }
}

async function loadInitState(db: Queryable, env: InitEnv, keyHash: Buffer): Promise<InitState> {
  const res = await tracedQuery<{
    account_id: string;
    organization_id: string | null;
    space_id: string | null;
    user_id: string | null;
    key_exists: boolean;
  }>(
    db,
    "init state",
    `select i.account_id,
            (select id from organizations where account_id = i.account_id and name = $1) as organization_id,
            (select sp.id from spaces sp join organizations o on o.id = sp.organization_id
              where o.account_id = i.account_id and o.name = $1 and sp.name = $2) as space_id,
            (select id from users where account_id = i.account_id and lower(email) = lower($3)) as user_id,
            exists (select 1 from api_key_secrets where key_hash = $4) as key_exists
       from installation i`,
    [env.orgName, env.spaceName, env.adminEmail, keyHash],
  );
  const r = res.rows[0];
  return {
    accountId: r?.account_id ?? null,
    organizationId: r?.organization_id ?? null,
    spaceId: r?.space_id ?? null,
    adminUserId: r?.user_id ?? null,
    keyExists: r?.key_exists ?? false,
  };
}
