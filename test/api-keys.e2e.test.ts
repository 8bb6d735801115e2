import { createHmac, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  createApiKey,
  listApiKeys,
  refreshApiKey,
  revokeApiKey,
} from "@arizeai/ax-client";
import { predefinedRole } from "@argus/platform";
import { isWellFormedArgusKey } from "../services/identity/src/apiKeys/apiKeyFormat.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

let api: Api;
let db: pg.Pool;
let accountId: string;
let orgId: string;
let spaceId: string; // the initial (public) space
let privateSpaceId: string;

const uuidOf = (id: string) => Buffer.from(id, "base64").toString().split(":")[1]!;
const ax = (key = api.stack.apiKey) => createClient({ baseUrl: api.stack.baseUrl, apiKey: key });

/**
 * Users other than the initial admin, with their own USER key and space roles. There is no
 * user API in this part of the work, so they are written to identity's tables directly; the
 * key is stored exactly as identity stores keys (HMAC-SHA-256 under the pepper).
 */
async function seedUser(
  accountRole: "member" | "admin" | "annotator",
  bindings: { spaceId: string; role: "ADMIN" | "MEMBER" | "READ_ONLY" }[] = [],
): Promise<{ id: string; key: string }> {
  const id = randomUUID();
  const key = `ak-test-${randomUUID()}`;
  const keyId = randomUUID();
  await db.query(
    `insert into users (id, account_id, email, name, account_role, is_developer, status, created_at)
       values ($1, $2, $3, 'seeded', $4, false, 'ACTIVE', now())`,
    [id, accountId, `${id}@example.com`, accountRole],
  );
  await db.query(
    `insert into api_keys (id, account_id, key_type, user_id, created_by_user_id, name, redacted_key, status, created_at)
       values ($1, $2, 'USER', $3, $3, 'seeded', 'ak-test…', 'ACTIVE', now())`,
    [keyId, accountId, id],
  );
  await db.query("insert into api_key_secrets (api_key_id, key_hash) values ($1, $2)", [
    keyId,
    createHmac("sha256", api.stack.env.ARGUS_API_KEY_PEPPER!).update(key).digest(),
  ]);
  for (const b of bindings) {
    await db.query(
      `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
         values ($1, $2, $3, 'USER', $4, 'SPACE', $5, now(), now())`,
      [randomUUID(), accountId, predefinedRole(b.role).id, id, uuidOf(b.spaceId)],
    );
  }
  return { id: Buffer.from(`User:${id}`).toString("base64"), key };
}

const create = (body: Json, key?: string) => api.req("POST", "/v2/api-keys", { body, key });
const serviceBody = (spaces: Json[], extra: Json = {}) => ({
  key_type: "SERVICE",
  name: "bot",
  organizations: [{ org_id: orgId, spaces }],
  ...extra,
});
const works = async (key: string) => (await api.req("GET", "/v2/spaces", { key })).status;

beforeAll(async () => {
  api = await startApi();
  db = new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=identity",
  });
  accountId = (await db.query<{ account_id: string }>("select account_id from installation"))
    .rows[0]!.account_id;
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  privateSpaceId = (
    await api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name: "private", is_private: true },
    })
  ).body.id;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

describe("USER keys through the public client", () => {
  it("creates, lists, authenticates, revokes (idempotently) and hides the secret", async () => {
    const created = await createApiKey({
      client: ax(),
      keyType: "USER",
      name: "mine",
      description: "d",
    });
    expect(isWellFormedArgusKey(created.key)).toBe(true);
    expect(created).toMatchObject({
      name: "mine",
      description: "d",
      keyType: "USER",
      status: "ACTIVE",
    });
    expect(created.redactedKey).toBe(`ak-argus-…${created.key.slice(-4)}`);
    expect(await works(created.key)).toBe(200);

    const listed = await listApiKeys({ client: ax() });
    const item = listed.data.find((k) => k.id === created.id);
    expect(item).toMatchObject({ name: "mine", redactedKey: created.redactedKey });
    expect(JSON.stringify(listed)).not.toContain(created.key);

    await revokeApiKey({ client: ax(), apiKeyId: created.id });
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: created.key }),
      401,
      "authentication-required",
    );
    // Rule 2: revoking again is a no-op, still 204.
    const again = await api.req("PUT", `/v2/api-keys/${created.id}/revoke`);
    expect(again.status).toBe(204);

    const active = await api.req("GET", "/v2/api-keys");
    expect(active.body.api_keys.map((k: Json) => k.id)).not.toContain(created.id);
    const revoked = await api.req("GET", "/v2/api-keys?status=REVOKED");
    expect(revoked.body.api_keys.find((k: Json) => k.id === created.id)).toMatchObject({
      status: "REVOKED",
    });
  });

  it("validates name (1..256, the public API's bound), description (..1000), expires_at and unknown fields with 422", async () => {
    expect((await create({ key_type: "USER", name: "n".repeat(256) })).status).toBe(201);
    expectProblem(
      await create({ key_type: "USER", name: "n".repeat(257) }),
      422,
      "validation-error",
    );
    expectProblem(await create({ key_type: "USER", name: "" }), 422, "validation-error");
    expectProblem(await create({ key_type: "USER", name: "   " }), 422, "unprocessable-entity");
    expect(
      (await create({ key_type: "USER", name: "d", description: "d".repeat(1000) })).status,
    ).toBe(201);
    expectProblem(
      await create({ key_type: "USER", name: "d", description: "d".repeat(1001) }),
      422,
      "validation-error",
    );
    expectProblem(
      await create({ key_type: "USER", name: "past", expires_at: "2020-01-01T00:00:00Z" }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await create({ key_type: "USER", name: "x", id: "abc" }),
      422,
      "validation-error",
    );
    expectProblem(await create({ name: "no type" }), 422, "validation-error");
    expectProblem(
      await create({
        key_type: "USER",
        name: "x",
        organizations: [{ org_id: orgId, spaces: [{ space_id: spaceId }] }],
      }),
      422,
      "unprocessable-entity",
    );
  });

  it("honours expires_at: the key stops authenticating when it expires", async () => {
    const res = await create({
      key_type: "USER",
      name: "short-lived",
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    expect(res.status).toBe(201);
    expect(await works(res.body.key)).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect(await works(res.body.key)).toBe(401);
  });

  it("pages with limit and cursor (limit 0 and 101 are 400)", async () => {
    for (let i = 0; i < 3; i++) await create({ key_type: "USER", name: `page-${i}` });
    const first = await api.req("GET", "/v2/api-keys?limit=1");
    expect(first.body.api_keys).toHaveLength(1);
    expect(first.body.pagination.has_more).toBe(true);
    const second = await api.req(
      "GET",
      `/v2/api-keys?limit=1&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`,
    );
    expect(second.body.api_keys[0].id).not.toBe(first.body.api_keys[0].id);
    expectProblem(await api.req("GET", "/v2/api-keys?limit=0"), 400, "invalid-request");
    expectProblem(await api.req("GET", "/v2/api-keys?limit=101"), 400, "invalid-request");
    expect((await api.req("GET", "/v2/api-keys?limit=100")).status).toBe(200);
  });
});

describe("refresh", () => {
  it("swaps the secret, keeps the id; without grace the old secret stops at once", async () => {
    const created = await createApiKey({ client: ax(), keyType: "USER", name: "rotate" });
    const refreshed = await refreshApiKey({ client: ax(), apiKeyId: created.id });
    expect(refreshed.id).toBe(created.id);
    expect(refreshed.key).not.toBe(created.key);
    expect(isWellFormedArgusKey(refreshed.key)).toBe(true);
    expect(await works(created.key)).toBe(401);
    expect(await works(refreshed.key)).toBe(200);
  });

  it("keeps the old secret working during the grace period only", async () => {
    const created = await create({ key_type: "USER", name: "graceful" });
    const res = await api.req("POST", `/v2/api-keys/${created.body.id}/refresh`, {
      body: { grace_period_seconds: 2 },
    });
    expect(res.status).toBe(200);
    expect(await works(created.body.key)).toBe(200);
    expect(await works(res.body.key)).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await works(created.body.key)).toBe(401);
    expect(await works(res.body.key)).toBe(200);
  });

  it("checks grace_period_seconds 0..86400 and the expiry rules with 422", async () => {
    const k = (await create({ key_type: "USER", name: "g" })).body;
    const refresh = (body: Json) => api.req("POST", `/v2/api-keys/${k.id}/refresh`, { body });
    expectProblem(await refresh({ grace_period_seconds: 86401 }), 422, "validation-error");
    expectProblem(await refresh({ grace_period_seconds: -1 }), 422, "validation-error");
    expect((await refresh({ grace_period_seconds: 86400 })).status).toBe(200);
    expect((await refresh({ grace_period_seconds: 0 })).status).toBe(200);

    const exp = new Date(Date.now() + 3600_000).toISOString();
    const bounded = (await create({ key_type: "USER", name: "bounded", expires_at: exp })).body;
    const path = `/v2/api-keys/${bounded.id}/refresh`;
    expectProblem(await api.req("POST", path, { body: {} }), 422, "unprocessable-entity");
    const later = new Date(Date.now() + 7200_000).toISOString();
    expectProblem(
      await api.req("POST", path, { body: { expires_at: later } }),
      422,
      "unprocessable-entity",
    );
    const sooner = new Date(Date.now() + 1800_000).toISOString();
    const ok = await api.req("POST", path, { body: { expires_at: sooner } });
    expect(ok.status).toBe(200);
    expect(new Date(ok.body.expires_at).getTime()).toBe(new Date(sooner).getTime());

    await api.req("PUT", `/v2/api-keys/${k.id}/revoke`);
    expectProblem(await refresh({}), 422, "unprocessable-entity");
  });
});

describe("SERVICE keys", () => {
  it("creates a service account bound to the space; it authenticates as SERVICE with those roles", async () => {
    const created = await createApiKey({
      client: ax(),
      keyType: "SERVICE",
      name: "ci",
      organizations: [{ orgId, spaces: [{ spaceId, role: { name: "READ_ONLY" } }] }],
    });
    expect(created.keyType).toBe("SERVICE");
    if (created.keyType !== "SERVICE") throw new Error("not a service key");
    expect(created.botUser!.organizations).toEqual([
      {
        orgId,
        role: { type: "PREDEFINED", name: "READ_ONLY" },
        spaces: [{ spaceId, role: { type: "PREDEFINED", name: "READ_ONLY" } }],
      },
    ]);
    expect((await api.req("GET", `/v2/spaces/${spaceId}`, { key: created.key })).status).toBe(200);
    // Not bound to the private space, so it does not exist for this key.
    expectProblem(
      await api.req("GET", `/v2/spaces/${privateSpaceId}`, { key: created.key }),
      404,
      "resource-not-found",
    );
    // An explicit organization role makes the service account a member of the organization:
    // below ADMIN it reaches no space beyond the listed ones (the private space stays hidden) ...
    const orgMember = await create({
      key_type: "SERVICE",
      name: "org-member",
      organizations: [
        { org_id: orgId, role: { name: "READ_ONLY" }, spaces: [{ space_id: spaceId }] },
      ],
    });
    expectProblem(
      await api.req("GET", `/v2/spaces/${privateSpaceId}`, { key: orgMember.body.key }),
      404,
      "resource-not-found",
    );
    // ... and counts in the listed spaces: the higher of it and the space role is bound there.
    const orgAbove = await create({
      key_type: "SERVICE",
      name: "org-above",
      organizations: [
        {
          org_id: orgId,
          role: { name: "MEMBER" },
          spaces: [{ space_id: spaceId, role: { name: "READ_ONLY" } }],
        },
      ],
    });
    expect(orgAbove.body.bot_user.organizations[0].spaces[0].role).toEqual({
      type: "PREDEFINED",
      name: "MEMBER",
    });
    // The organization ADMIN role reaches every space of the organization, private too.
    const orgWide = await create({
      key_type: "SERVICE",
      name: "org-wide",
      organizations: [{ org_id: orgId, role: { name: "ADMIN" }, spaces: [{ space_id: spaceId }] }],
    });
    expect(
      (await api.req("GET", `/v2/spaces/${privateSpaceId}`, { key: orgWide.body.key })).status,
    ).toBe(200);
    // A service account is not a user: it cannot create keys.
    expectProblem(
      await create({ key_type: "USER", name: "x" }, created.key),
      403,
      "access-forbidden",
    );

    // Rule 1: with space_id, service keys are listed even when key_type is omitted.
    const listed = await api.req("GET", `/v2/api-keys?space_id=${encodeURIComponent(spaceId)}`);
    expect(listed.body.api_keys.map((k: Json) => k.id)).toContain(created.id);
    expect(listed.body.api_keys.every((k: Json) => k.key_type === "SERVICE")).toBe(true);
    // Each one carries its bot user (the public API's ServiceApiKey): in a list scoped to a
    // space without its bindings, in one across spaces with those the caller can see, as the
    // creation answered them.
    const inSpace = listed.body.api_keys.find((k: Json) => k.id === created.id);
    expect(inSpace.bot_user).toEqual({
      id: created.botUser!.id,
      name: "ci",
      account_role: { type: "PREDEFINED", name: "MEMBER" },
      organizations: [],
    });
    const across = (await api.req("GET", "/v2/api-keys?key_type=SERVICE&limit=100")).body
      .api_keys as Json[];
    for (const made of [
      {
        id: created.id,
        bot_user: {
          ...inSpace.bot_user,
          organizations: [
            {
              org_id: orgId,
              role: { type: "PREDEFINED", name: "READ_ONLY" },
              spaces: [{ space_id: spaceId, role: { type: "PREDEFINED", name: "READ_ONLY" } }],
            },
          ],
        },
      },
      orgAbove.body,
      orgWide.body,
    ])
      expect(across.find((k) => k.id === made.id)?.bot_user).toEqual(made.bot_user);
    expect(across.every((k) => k.bot_user !== undefined)).toBe(true);
    const other = await api.req(
      "GET",
      `/v2/api-keys?space_id=${encodeURIComponent(privateSpaceId)}`,
    );
    expect(other.body.api_keys.map((k: Json) => k.id)).not.toContain(created.id);
    // Without space_id, USER keys by default.
    const users = await api.req("GET", "/v2/api-keys");
    expect(users.body.api_keys.every((k: Json) => k.key_type === "USER")).toBe(true);
  });

  it("defaults roles (space MEMBER, organization READ_ONLY) and rejects bad assignments", async () => {
    const res = await create(serviceBody([{ space_id: spaceId }]));
    expect(res.status).toBe(201);
    expect(res.body.bot_user.account_role).toEqual({ type: "PREDEFINED", name: "MEMBER" });
    expect(res.body.bot_user.organizations[0].role).toEqual({
      type: "PREDEFINED",
      name: "READ_ONLY",
    });
    expect(res.body.bot_user.organizations[0].spaces[0].role).toEqual({
      type: "PREDEFINED",
      name: "MEMBER",
    });

    const annotator = { type: "PREDEFINED", name: "ANNOTATOR" };
    expectProblem(
      await create(serviceBody([{ space_id: spaceId, role: annotator }])),
      422,
      "unprocessable-entity",
    );
    const custom = { type: "CUSTOM", id: Buffer.from(`Role:${randomUUID()}`).toString("base64") };
    expectProblem(
      await create(serviceBody([{ space_id: spaceId, role: custom }])),
      422,
      "unprocessable-entity",
    );
    expectProblem(await create(serviceBody([])), 422, "validation-error");
    expectProblem(
      await create({ key_type: "SERVICE", name: "x", organizations: [] }),
      422,
      "validation-error",
    );
    expectProblem(await create({ key_type: "SERVICE", name: "x" }), 422, "unprocessable-entity");
    expectProblem(
      await create(serviceBody([{ space_id: spaceId }, { space_id: spaceId }])),
      422,
      "unprocessable-entity",
    );
    const unknownSpace = Buffer.from(`Space:${randomUUID()}`).toString("base64");
    expectProblem(
      await create(serviceBody([{ space_id: unknownSpace }])),
      404,
      "resource-not-found",
    );
    // A space listed under an organization it does not belong to.
    const org2 = (await api.req("POST", "/v2/organizations", { body: { name: "second org" } })).body
      .id;
    expectProblem(
      await create({
        key_type: "SERVICE",
        name: "x",
        organizations: [{ org_id: org2, spaces: [{ space_id: spaceId }] }],
      }),
      422,
      "unprocessable-entity",
    );
  });
});

describe("SERVICE keys with the ADMIN account role or a custom space role", () => {
  it("an account admin's ADMIN key is an account admin; a member cannot make one (403)", async () => {
    const res = await create(
      serviceBody([{ space_id: spaceId }], { account_role: { name: "ADMIN" } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.bot_user.account_role).toEqual({ type: "PREDEFINED", name: "ADMIN" });
    const plain = (await create(serviceBody([{ space_id: spaceId }]))).body.key as string;
    // Audit logs and the private space it was not bound in are an account admin's.
    expect((await api.req("GET", "/v2/audit-logs?limit=1", { key: res.body.key })).status).toBe(
      200,
    );
    expect((await api.req("GET", "/v2/audit-logs?limit=1", { key: plain })).status).toBe(403);
    expect(
      (await api.req("GET", `/v2/spaces/${privateSpaceId}`, { key: res.body.key })).status,
    ).toBe(200);
    expect((await api.req("GET", `/v2/spaces/${privateSpaceId}`, { key: plain })).status).toBe(404);

    const member = await seedUser("member", [{ spaceId, role: "ADMIN" }]);
    expectProblem(
      await create(
        serviceBody([{ space_id: spaceId }], { account_role: { name: "ADMIN" } }),
        member.key,
      ),
      403,
      "access-forbidden",
    );
    expectProblem(
      await create(
        serviceBody([{ space_id: spaceId }], {
          account_role: {
            type: "CUSTOM",
            id: Buffer.from(`Role:${randomUUID()}`).toString("base64"),
          },
        }),
      ),
      422,
      "unprocessable-entity",
    );
  });

  it("a custom space role binds that role: its permissions there, no more; above the caller's own is 422", async () => {
    const role = (
      await api.req("POST", "/v2/roles", {
        body: { name: "key-reader", permissions: ["SPACE_READ", "PROJECT_READ"] },
      })
    ).body;
    const res = await create(
      serviceBody([{ space_id: spaceId, role: { type: "CUSTOM", id: role.id } }]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.bot_user.organizations[0].spaces[0].role).toEqual({
      type: "CUSTOM",
      id: role.id,
      name: "key-reader",
    });
    const key = res.body.key as string;
    expect((await api.req("GET", `/v2/spaces/${spaceId}`, { key })).status).toBe(200);
    expect(
      (await api.req("GET", `/v2/projects?space_id=${encodeURIComponent(spaceId)}`, { key }))
        .status,
    ).toBe(200);
    expectProblem(
      await api.req("POST", "/v2/projects", { body: { name: "nope", space_id: spaceId }, key }),
      403,
      "access-forbidden",
    );
    // A role still bound (by the key's service account) cannot be deleted.
    expect((await api.req("DELETE", `/v2/roles/${role.id}`)).status).toBe(409);

    // A member with the MEMBER role may not hand out SPACE_DELETE, which they do not hold.
    const strong = (
      await api.req("POST", "/v2/roles", {
        body: { name: "key-deleter", permissions: ["SPACE_READ", "SPACE_DELETE"] },
      })
    ).body;
    const member = await seedUser("member", [{ spaceId, role: "MEMBER" }]);
    expectProblem(
      await create(
        serviceBody([{ space_id: spaceId, role: { type: "CUSTOM", id: strong.id } }]),
        member.key,
      ),
      422,
      "unprocessable-entity",
    );
    expect(
      (
        await create(
          serviceBody([{ space_id: spaceId, role: { type: "CUSTOM", id: role.id } }]),
          member.key,
        )
      ).status,
    ).toBe(201);
  });
});

describe("authorization (spec endpoints 3 and 4)", () => {
  it("USER keys: the creator or an account admin revokes; others get 404; user_id is admin-only", async () => {
    const alice = await seedUser("member");
    const bob = await seedUser("member");
    const aliceKey = (await create({ key_type: "USER", name: "alice's" }, alice.key)).body;
    const adminKey = (await create({ key_type: "USER", name: "admin's" })).body;

    // Bob cannot read Alice's key: 404, not 403 (rule 5).
    expectProblem(
      await api.req("PUT", `/v2/api-keys/${aliceKey.id}/revoke`, { key: bob.key }),
      404,
      "resource-not-found",
    );
    expectProblem(
      await api.req("PUT", `/v2/api-keys/${adminKey.id}/revoke`, { key: alice.key }),
      404,
      "resource-not-found",
    );
    // Rule 3 of the list: another user's keys are for account admins only.
    expectProblem(
      await api.req("GET", `/v2/api-keys?user_id=${encodeURIComponent(alice.id)}`, {
        key: bob.key,
      }),
      403,
      "access-forbidden",
    );
    const asAdmin = await api.req("GET", `/v2/api-keys?user_id=${encodeURIComponent(alice.id)}`);
    expect(asAdmin.body.api_keys.map((k: Json) => k.id)).toContain(aliceKey.id);
    // Without user_id a member sees only their own keys.
    const own = await api.req("GET", "/v2/api-keys", { key: alice.key });
    const ownIds = own.body.api_keys.map((k: Json) => k.id);
    expect(ownIds).toContain(aliceKey.id);
    expect(ownIds).not.toContain(adminKey.id);
    expect(own.body.api_keys.every((k: Json) => k.created_by_user_id === alice.id)).toBe(true);

    expect(
      (await api.req("PUT", `/v2/api-keys/${aliceKey.id}/revoke`, { key: alice.key })).status,
    ).toBe(204);
    const second = (await create({ key_type: "USER", name: "alice's 2" }, alice.key)).body;
    expect((await api.req("PUT", `/v2/api-keys/${second.id}/revoke`)).status).toBe(204);
  });

  it("SERVICE keys: space admins and admins revoke any; others need SERVICE_KEY_REVOKE everywhere and to be the creator", async () => {
    const creator = await seedUser("member", [{ spaceId, role: "MEMBER" }]);
    const otherMember = await seedUser("member", [{ spaceId, role: "MEMBER" }]);
    const reader = await seedUser("member", [{ spaceId, role: "READ_ONLY" }]);
    const spaceAdmin = await seedUser("member", [{ spaceId, role: "ADMIN" }]);
    const outsider = await seedUser("member");
    const newKey = async () => {
      const res = await create(serviceBody([{ space_id: spaceId }]), creator.key);
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const revoke = (id: string, key: string) =>
      api.req("PUT", `/v2/api-keys/${id}/revoke`, { key });

    const k1 = await newKey();
    // Members of a public space can read its service keys, so they get 403, not 404.
    expectProblem(await revoke(k1, otherMember.key), 403, "access-forbidden");
    expectProblem(await revoke(k1, reader.key), 403, "access-forbidden");
    expectProblem(await revoke(k1, outsider.key), 403, "access-forbidden");
    expect((await revoke(k1, creator.key)).status).toBe(204);
    expect((await revoke(await newKey(), spaceAdmin.key)).status).toBe(204);
    expect((await revoke(await newKey(), api.stack.apiKey)).status).toBe(204);

    // A key bound to a private space is invisible to whoever has no access there: 404.
    const privateMember = await seedUser("member", [{ spaceId: privateSpaceId, role: "MEMBER" }]);
    const hidden = await create(serviceBody([{ space_id: privateSpaceId }]), privateMember.key);
    expect(hidden.status).toBe(201);
    expectProblem(await revoke(hidden.body.id, outsider.key), 404, "resource-not-found");
    // Without space_id, SERVICE keys of the spaces where the caller holds SERVICE_KEY_READ.
    const outsiderList = await api.req("GET", "/v2/api-keys?key_type=SERVICE", {
      key: outsider.key,
    });
    expect(outsiderList.body.api_keys.map((k: Json) => k.id)).not.toContain(hidden.body.id);
    const insiderList = await api.req("GET", "/v2/api-keys?key_type=SERVICE", {
      key: privateMember.key,
    });
    expect(insiderList.body.api_keys.map((k: Json) => k.id)).toContain(hidden.body.id);
    // Listing a space needs SERVICE_KEY_READ there; a private space one is not in is 404.
    expectProblem(
      await api.req("GET", `/v2/api-keys?space_id=${encodeURIComponent(privateSpaceId)}`, {
        key: outsider.key,
      }),
      404,
      "resource-not-found",
    );
    // A public space without SERVICE_KEY_READ (annotators hold no implicit read): 403.
    const annotator = await seedUser("annotator");
    expectProblem(
      await api.req("GET", `/v2/api-keys?space_id=${encodeURIComponent(spaceId)}`, {
        key: annotator.key,
      }),
      403,
      "access-forbidden",
    );
    const asReader = await api.req(
      "GET",
      `/v2/api-keys?space_id=${encodeURIComponent(spaceId)}&status=REVOKED`,
      {
        key: reader.key,
      },
    );
    expect(asReader.body.api_keys.map((k: Json) => k.id)).toContain(k1);
    // Rule 2: user_id with service keys filters by creator, for anyone with access to the space.
    const byCreator = await api.req(
      "GET",
      `/v2/api-keys?space_id=${encodeURIComponent(spaceId)}&status=REVOKED&user_id=${encodeURIComponent(creator.id)}`,
      { key: reader.key },
    );
    expect(byCreator.status).toBe(200);
    expect(byCreator.body.api_keys.length).toBeGreaterThanOrEqual(3);
  });

  it("a member cannot grant a space role above their own (422) nor create keys without SERVICE_KEY_CREATE (403)", async () => {
    const member = await seedUser("member", [{ spaceId, role: "MEMBER" }]);
    const reader = await seedUser("member", [{ spaceId, role: "READ_ONLY" }]);
    expectProblem(
      await create(serviceBody([{ space_id: spaceId, role: { name: "ADMIN" } }]), member.key),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await create(
        serviceBody([{ space_id: spaceId }], {
          organizations: [
            { org_id: orgId, role: { name: "ADMIN" }, spaces: [{ space_id: spaceId }] },
          ],
        }),
        member.key,
      ),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await create(serviceBody([{ space_id: spaceId }]), reader.key),
      403,
      "access-forbidden",
    );
  });

  it("unknown and malformed key ids are 404", async () => {
    const unknown = Buffer.from(`ApiKey:${randomUUID()}`).toString("base64");
    expectProblem(
      await api.req("PUT", `/v2/api-keys/${unknown}/revoke`),
      404,
      "resource-not-found",
    );
    expectProblem(
      await api.req("PUT", `/v2/api-keys/${spaceId}/revoke`),
      404,
      "resource-not-found",
    );
    expectProblem(
      await api.req("POST", `/v2/api-keys/${unknown}/refresh`),
      404,
      "resource-not-found",
    );
  });
});
