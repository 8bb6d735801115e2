import { createHmac, randomUUID } from "node:crypto";
import pg from "pg";
import type { Api, Json } from "./support.ts";

/** Internal uuid of a public id (test-only: clients never parse ids). */
export const uuidOf = (id: string): string => Buffer.from(id, "base64").toString().split(":")[1]!;

/** Identity's tables, for test setup the public API cannot do (see `seedKey`). */
export function identityDb(api: Api): pg.Pool {
  return new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=identity",
    max: 2,
  });
}

/**
 * TEST SETUP until users can create their own keys in these suites: a USER key for `userId`,
 * stored exactly as identity stores keys (HMAC-SHA-256 under the pepper).
 */
export async function seedKey(
  api: Api,
  db: pg.Pool,
  userId: string,
  opts: { status?: "ACTIVE" | "REVOKED"; expiresAt?: Date } = {},
): Promise<string> {
  const key = `ak-test-${randomUUID()}`;
  const keyId = randomUUID();
  const user = uuidOf(userId);
  await db.query(
    `insert into api_keys (id, account_id, key_type, user_id, created_by_user_id, name, redacted_key, status, created_at, expires_at)
       select $1, account_id, 'USER', $2, $2, 'seeded', 'ak-test…', $3, now(), $4 from users where id = $2`,
    [keyId, user, opts.status ?? "ACTIVE", opts.expiresAt ?? null],
  );
  await db.query("insert into api_key_secrets (api_key_id, key_hash) values ($1, $2)", [
    keyId,
    createHmac("sha256", api.stack.env.ARGUS_API_KEY_PEPPER!).update(key).digest(),
  ]);
  // And its stream, which identity decides on (deleting the user revokes the key there).
  await db.query(
    `insert into events (stream_id, stream_version, event_id, event_type, data, metadata)
     select 'api_key-' || k.id, 1, gen_random_uuid(), 'ApiKeyCreated',
            jsonb_build_object('id', k.id, 'account_id', k.account_id, 'key_type', 'USER',
              'user_id', k.user_id, 'service_account_id', null,
              'created_by_user_id', k.created_by_user_id, 'name', k.name, 'description', '',
              'redacted_key', k.redacted_key, 'created_at', k.created_at, 'expires_at', k.expires_at),
            '{"actor": "test:seed"}'::jsonb
       from api_keys k where k.id = $1
     union all
     select 'api_key-' || k.id, 2, gen_random_uuid(), 'ApiKeyRevoked',
            jsonb_build_object('id', k.id, 'revoked_at', k.created_at), '{"actor": "test:seed"}'::jsonb
       from api_keys k where k.id = $1 and k.status = 'REVOKED'`,
    [keyId],
  );
  return key;
}

let counter = 0;

/** A user invited through the API (as the admin), with a key of its own. */
export async function newUser(
  api: Api,
  db: pg.Pool,
  role: "ADMIN" | "MEMBER" | "ANNOTATOR",
): Promise<{ id: string; key: string; body: Json }> {
  counter += 1;
  const res = await api.req("POST", "/v2/users", {
    body: {
      name: `user ${counter}`,
      email: `u${counter}-${randomUUID()}@example.com`,
      role: { type: "PREDEFINED", name: role },
      invite_mode: "EMAIL_LINK",
    },
  });
  if (res.status !== 201) throw new Error(`create user: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, key: await seedKey(api, db, res.body.id), body: res.body };
}

/** add_organization_user as the admin (a user must belong to an organization to join its spaces). */
export async function addOrganizationUser(
  api: Api,
  organizationId: string,
  userId: string,
  role: string,
): Promise<Json> {
  const res = await api.req("POST", `/v2/organizations/${organizationId}/users`, {
    body: { user_id: userId, role: { type: "PREDEFINED", name: role } },
  });
  if (res.status !== 200)
    throw new Error(`add organization user: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * add_space_user as the admin. The public API requires the user to belong to the space's
 * organization already: with `organizationId` (the public Space does not name its
 * organization, so the caller does) the user is first added to it (READ_ONLY, or ANNOTATOR for
 * the ANNOTATOR space role); `null` when the caller has made the user a member itself.
 */
export async function addSpaceUser(
  api: Api,
  spaceId: string,
  userId: string,
  role: string,
  organizationId: string | null,
): Promise<Json> {
  if (organizationId !== null)
    await addOrganizationUser(
      api,
      organizationId,
      userId,
      role === "ANNOTATOR" ? "ANNOTATOR" : "READ_ONLY",
    );
  const res = await api.req("POST", `/v2/spaces/${spaceId}/users`, {
    body: { user_id: userId, role: { type: "PREDEFINED", name: role } },
  });
  if (res.status !== 200)
    throw new Error(`add space user: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
