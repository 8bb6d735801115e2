import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { predefinedRole } from "@argus/platform";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { addSpaceUser, identityDb, newUser, uuidOf } from "./identity-fixtures.ts";

let api: Api;
let db: pg.Pool;
let orgId: string;

const roleId = (name: "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR") =>
  Buffer.from(`Role:${predefinedRole(name).id}`).toString("base64");

async function newSpace(isPrivate = true): Promise<string> {
  const res = await api.req("POST", "/v2/spaces", {
    body: { organization_id: orgId, name: `s-${Math.random()}`, is_private: isPrivate },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  api = await startApi();
  db = identityDb(api);
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
});
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

describe("deleting a user revokes their USER keys", () => {
  it("one ApiKeyRevoked per active key, in the deletion's transaction; none listed ACTIVE", async () => {
    const u = await newUser(api, db, "MEMBER");
    const made = await api.req("POST", "/v2/api-keys", {
      key: u.key,
      body: { key_type: "USER", name: "mine" },
    });
    expect(made.status).toBe(201);
    const other = await api.req("POST", "/v2/api-keys", {
      key: u.key,
      body: { key_type: "USER", name: "revoked before" },
    });
    expect((await api.req("PUT", `/v2/api-keys/${other.body.id}/revoke`)).status).toBe(204);
    const listed = (q: string) =>
      api.req("GET", `/v2/api-keys?key_type=USER&user_id=${encodeURIComponent(u.id)}${q}`);
    expect((await listed("")).body.api_keys.map((k: Json) => k.id)).toContain(made.body.id);

    expect((await api.req("DELETE", `/v2/users/${u.id}`)).status).toBe(204);

    expect((await listed("")).body.api_keys).toEqual([]);
    const revoked = await listed("&status=REVOKED");
    expect(revoked.body.api_keys.find((k: Json) => k.id === made.body.id)).toMatchObject({
      status: "REVOKED",
    });
    const ev = await db.query(
      `select stream_id, event_type, transaction_id::text as tx from events
        where stream_id = any($1) and event_type in ('ApiKeyRevoked', 'UserDeleted')
        order by global_position`,
      [
        [
          `api_key-${uuidOf(made.body.id)}`,
          `api_key-${uuidOf(other.body.id)}`,
          `user-${uuidOf(u.id)}`,
        ],
      ],
    );
    const types = ev.rows.map((r) => `${r.stream_id.split("-")[0]}:${r.event_type}`);
    // The already revoked key got no second event; the active one got exactly one.
    expect(types).toEqual(["api_key:ApiKeyRevoked", "user:UserDeleted", "api_key:ApiKeyRevoked"]);
    expect(ev.rows[1].tx).toBe(ev.rows[2].tx);
  });
});

describe("restricted projects (project-level authorization)", () => {
  it("a space admin restricts, lists and lifts in its space; a reader may not and lists none", async () => {
    const space = await newSpace(true);
    const [spaceAdmin, reader] = [
      await newUser(api, db, "MEMBER"),
      await newUser(api, db, "MEMBER"),
    ];
    await addSpaceUser(api, space, spaceAdmin.id, "ADMIN", orgId);
    await addSpaceUser(api, space, reader.id, "READ_ONLY", orgId);
    const project = async () =>
      (
        await api.req("POST", "/v2/projects", {
          body: { space_id: space, name: `r-${randomUUID()}` },
        })
      ).body.id as string;
    const listed = async (key?: string) =>
      (
        await api.req("GET", "/v2/resource-restrictions?limit=100", { key })
      ).body.resource_restrictions.map((r: Json) => r.resource_id);
    const [byAdmin, byAccountAdmin] = [await project(), await project()];
    expectProblem(
      await api.req("POST", "/v2/resource-restrictions", {
        body: { resource_id: byAdmin },
        key: reader.key,
      }),
      403,
      "access-forbidden",
    );
    const made = await api.req("POST", "/v2/resource-restrictions", {
      body: { resource_id: byAdmin },
      key: spaceAdmin.key,
    });
    expect([made.status, made.body.resource_id]).toEqual([200, byAdmin]);
    expect(
      (
        await api.req("POST", "/v2/resource-restrictions", {
          body: { resource_id: byAccountAdmin },
        })
      ).status,
    ).toBe(200);
    // The space admin manages both (the space is where it holds PROJECT_RESTRICT); the reader neither.
    expect(await listed(spaceAdmin.key)).toEqual(expect.arrayContaining([byAdmin, byAccountAdmin]));
    expect(await listed(reader.key)).toEqual([]);
    expect(await listed()).toEqual(expect.arrayContaining([byAdmin, byAccountAdmin]));
    // Restricted, the project is hidden from the space admin too; it may still lift it.
    expect((await api.req("GET", `/v2/projects/${byAdmin}`, { key: spaceAdmin.key })).status).toBe(
      404,
    );
    expectProblem(
      await api.req("DELETE", `/v2/resource-restrictions/${byAdmin}`, { key: reader.key }),
      403,
      "access-forbidden",
    );
    expect(
      (await api.req("DELETE", `/v2/resource-restrictions/${byAdmin}`, { key: spaceAdmin.key }))
        .status,
    ).toBe(204);
    expect((await api.req("GET", `/v2/projects/${byAdmin}`, { key: reader.key })).status).toBe(200);
    expect(await listed(spaceAdmin.key)).not.toContain(byAdmin);
  });

  it("a restricted project is 404 to a space reader without a binding, 200 once bound", async () => {
    const space = await newSpace(true);
    const reader = await newUser(api, db, "MEMBER");
    await addSpaceUser(api, space, reader.id, "READ_ONLY", orgId);
    const open = await api.req("POST", "/v2/projects", {
      body: { space_id: space, name: `open-${Math.random()}` },
    });
    const secret = await api.req("POST", "/v2/projects", {
      body: { space_id: space, name: `secret-${Math.random()}` },
    });
    expect(secret.status).toBe(201);
    const ids = async (key?: string) =>
      (await api.req("GET", `/v2/projects?space_id=${space}`, { key })).body.projects.map(
        (p: Json) => p.id,
      );
    expect(
      (await api.req("GET", `/v2/projects/${secret.body.id}`, { key: reader.key })).status,
    ).toBe(200);

    const restrict = await api.req("POST", "/v2/resource-restrictions", {
      body: { resource_id: secret.body.id },
    });
    expect(restrict.status).toBe(200);
    // Again: a no-op, also 200 (the account admin still reads the restricted project).
    const again = await api.req("POST", "/v2/resource-restrictions", {
      body: { resource_id: secret.body.id },
    });
    expect([again.status, again.body.resource_id]).toEqual([200, secret.body.id]);
    // A restriction names a resource of the account that exists: another id of each type is 404.
    for (const type of ["Project", "Dashboard", "Prompt"]) {
      const missing = Buffer.from(`${type}:${randomUUID()}`).toString("base64");
      expectProblem(
        await api.req("POST", "/v2/resource-restrictions", { body: { resource_id: missing } }),
        404,
        "resource-not-found",
      );
    }
    expectProblem(
      await api.req("GET", `/v2/projects/${secret.body.id}`, { key: reader.key }),
      404,
      "resource-not-found",
    );
    expect(await ids(reader.key)).toEqual([open.body.id]);
    // Account admins still see everything.
    expect((await api.req("GET", `/v2/projects/${secret.body.id}`)).status).toBe(200);
    expect(await ids()).toEqual([secret.body.id, open.body.id]);
    // The unrestricted project still follows the space.
    expect((await api.req("GET", `/v2/projects/${open.body.id}`, { key: reader.key })).status).toBe(
      200,
    );

    const bound = await api.req("POST", "/v2/role-bindings", {
      body: {
        role_id: roleId("READ_ONLY"),
        user_id: reader.id,
        resource_type: "PROJECT",
        resource_id: secret.body.id,
      },
    });
    expect(bound.status).toBe(201);
    expect(
      (await api.req("GET", `/v2/projects/${secret.body.id}`, { key: reader.key })).status,
    ).toBe(200);
    expect(await ids(reader.key)).toEqual([secret.body.id, open.body.id]);
    // READ_ONLY on the project does not allow renaming it.
    expectProblem(
      await api.req("PATCH", `/v2/projects/${secret.body.id}`, {
        key: reader.key,
        body: { name: "renamed" },
      }),
      403,
      "access-forbidden",
    );

    // Lifting the restriction returns the project to its space's permissions.
    expect((await api.req("DELETE", `/v2/resource-restrictions/${secret.body.id}`)).status).toBe(
      204,
    );
    const outsider = await newUser(api, db, "MEMBER");
    await addSpaceUser(api, space, outsider.id, "READ_ONLY", orgId);
    expect(
      (await api.req("GET", `/v2/projects/${secret.body.id}`, { key: outsider.key })).status,
    ).toBe(200);
  });
});
