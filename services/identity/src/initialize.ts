import type { Pool } from "pg";
import { uuidv7, type Logger } from "@argus/platform";
import type { EventStore } from "@argus/eventstore";
import { decideInitialization, type InitSettings, type InitState } from "./domain/installation.ts";
import { hashApiKey, redactApiKey } from "./apiKeySecret.ts";
import { project } from "./projection.ts";

export interface InitEnv {
  orgName: string;
  spaceName: string;
  adminEmail: string;
  adminName: string;
  apiKey: string;
}

// Serializes concurrent first starts of several identity replicas.
const INIT_LOCK = 0x41726775; // "Argu"

/** Creates what headless initialization asks for and is missing; a no-op on restart. */
export async function initialize(
  deps: { pool: Pool; store: EventStore; pepper: string; logger: Logger },
  env: InitEnv,
): Promise<void> {
  const settings: InitSettings = {
    orgName: env.orgName,
    spaceName: env.spaceName,
    adminEmail: env.adminEmail,
    adminName: env.adminName,
    apiKeyHash: hashApiKey(env.apiKey, deps.pepper),
    redactedKey: redactApiKey(env.apiKey),
  };
  const ids = {
    account: uuidv7(),
    organization: uuidv7(),
    space: uuidv7(),
    user: uuidv7(),
    apiKey: uuidv7(),
  };
  const appended = await deps.store.transaction(async (tx) => {
    await tx.client.query("select pg_advisory_xact_lock($1)", [INIT_LOCK]);
    const state = await loadInitState(tx.client, settings);
    const events = decideInitialization(settings, state, ids, new Date());
    for (const e of events) {
      await tx.append(e.streamId, 0, [
        { type: e.type, data: e.data, metadata: { actor: "system:init" } },
      ]);
    }
    await project(tx.client, events);
    if (!state.accountId)
      await tx.client.query("insert into installation (account_id) values ($1)", [ids.account]);
    if (!state.keyExists) {
      await tx.client.query("insert into api_key_secrets (api_key_id, key_hash) values ($1, $2)", [
        ids.apiKey,
        settings.apiKeyHash,
      ]);
    }
    return events.length;
  });
  deps.logger.info(
    appended > 0 ? "headless initialization applied" : "headless initialization already done",
    { events: appended },
  );
}

async function loadInitState(client: Pick<Pool, "query">, s: InitSettings): Promise<InitState> {
  const res = await client.query<{
    account_id: string;
    organization_id: string | null;
    space_id: string | null;
    user_id: string | null;
    key_exists: boolean;
  }>(
    `select i.account_id,
            (select id from organizations where account_id = i.account_id and name = $1) as organization_id,
            (select sp.id from spaces sp join organizations o on o.id = sp.organization_id
              where o.account_id = i.account_id and o.name = $1 and sp.name = $2) as space_id,
            (select id from users where account_id = i.account_id and lower(email) = lower($3)) as user_id,
            exists (select 1 from api_key_secrets where key_hash = $4) as key_exists
       from installation i`,
    [s.orgName, s.spaceName, s.adminEmail, s.apiKeyHash],
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
