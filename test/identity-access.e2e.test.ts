import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addSpaceUser as axAddSpaceUser,
  createClient,
  createRole as axCreateRole,
  createRoleBinding as axCreateRoleBinding,
  getRole as axGetRole,
  listRoles as axListRoles,
  listUsers as axListUsers,
  updateUser as axUpdateUser,
  updateSpace as axUpdateSpace,
} from "@arizeai/ax-client";
import { PERMISSIONS, PREDEFINED_ROLES, predefinedRole } from "@argus/platform";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import {
  addOrganizationUser,
  addSpaceUser,
  identityDb,
  newUser,
  seedKey,
  uuidOf,
} from "./identity-fixtures.ts";

let api: Api;
let db: pg.Pool;
let orgId: string;
let adminId: string;

const ax = (key = api.stack.apiKey) => createClient({ baseUrl: api.stack.baseUrl, apiKey: key });
const roleId = (name: "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR") =>
  Buffer.from(`Role:${predefinedRole(name).id}`).toString("base64");

async function newSpace(isPrivate = true, org = orgId): Promise<string> {
  const res = await api.req("POST", "/v2/spaces", {
    body: { organization_id: org, name: `s-${Math.random()}`, is_private: isPrivate },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  api = await startApi();
  db = identityDb(api);
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  const users = await api.req("GET", "/v2/users");
  adminId = users.body.users[0].id;
});
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

describe("users", () => {
  it("the initial admin is an ACTIVE account admin", async () => {
    const res = await api.req("GET", `/v2/users/${adminId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "ACTIVE",
      role: { type: "PREDEFINED", name: "ADMIN" },
    });
  });

  it("invites a user: INVITED, developer by default unless annotator", async () => {
    const m = await newUser(api, db, "MEMBER");
    expect(m.body).toMatchObject({
      status: "INVITED",
      is_developer: true,
      role: { name: "MEMBER" },
    });
    const a = await newUser(api, db, "ANNOTATOR");
    expect(a.body).toMatchObject({ is_developer: false, role: { name: "ANNOTATOR" } });
  });

  it("an invitation lapses into EXPIRED (computed) and a resend makes it INVITED again", async () => {
    const u = await newUser(api, db, "MEMBER");
    await db.query(
      "update invitation_tokens set expires_at = now() - interval '1 second' where user_id = $1",
      [uuidOf(u.id)],
    );
    expect((await api.req("GET", `/v2/users/${u.id}`)).body.status).toBe("EXPIRED");
    const expired = await api.req("GET", "/v2/users?status=EXPIRED");
    expect(expired.body.users.map((x: Json) => x.id)).toContain(u.id);
    const invited = await api.req("GET", "/v2/users?status=INVITED&status=ACTIVE");
    expect(invited.body.users.map((x: Json) => x.id)).not.toContain(u.id);
    expect(invited.body.users.map((x: Json) => x.id)).toContain(adminId);
    expectProblem(await api.req("GET", "/v2/users?status=GONE"), 400, "invalid-request");
    expect((await api.req("POST", `/v2/users/${u.id}/resend-invitation`)).status).toBe(204);
    expect((await api.req("GET", `/v2/users/${u.id}`)).body.status).toBe("INVITED");
  });

  it("lists users oldest first, as the public API, a page at a time", async () => {
    const tag = randomUUID();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.req("POST", "/v2/users", {
        body: {
          name: `ordered ${i}`,
          email: `ordered-${i}-${tag}@example.com`,
          role: { type: "PREDEFINED", name: "MEMBER" },
          invite_mode: "NONE",
        },
      });
      expect(res.status).toBe(201);
      made.push(res.body.id);
    }
    const first = await api.req("GET", `/v2/users?email=${tag}&limit=2`);
    expect(first.body.users.map((u: Json) => u.id)).toEqual(made.slice(0, 2));
    expect(first.body.pagination.has_more).toBe(true);
    const rest = await api.req(
      "GET",
      `/v2/users?email=${tag}&limit=2&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`,
    );
    expect(rest.body.users.map((u: Json) => u.id)).toEqual(made.slice(2));
    expect(rest.body.pagination.has_more).toBe(false);
    // The initial admin, made before anyone, heads the whole list.
    expect((await api.req("GET", "/v2/users?limit=1")).body.users[0].id).toBe(adminId);
  });

  it("resending to an ACTIVE user is 400", async () => {
    expectProblem(
      await api.req("POST", `/v2/users/${adminId}/resend-invitation`),
      400,
      "invalid-request",
    );
  });

  it("the e-mail is the invitation's idempotency key; invite_mode NONE is active at once", async () => {
    const invite = (email: string, invite_mode: string) =>
      api.req("POST", "/v2/users", {
        body: { name: "idem", email, role: { type: "PREDEFINED", name: "MEMBER" }, invite_mode },
      });
    const first = await invite("idem@example.com", "EMAIL_LINK");
    expect(first.status).toBe(201);
    expect(first.body.status).toBe("INVITED");
    // A still valid invitation is returned as it is: 200, same user, nothing resent.
    const again = await invite("IDEM@example.com", "EMAIL_LINK");
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // An expired invitation is renewed: 201, same user, INVITED again.
    await db.query(
      "update invitation_tokens set expires_at = now() - interval '1 second' where user_id = $1",
      [uuidOf(first.body.id)],
    );
    const renewed = await invite("idem@example.com", "EMAIL_LINK");
    expect(renewed.status).toBe(201);
    expect(renewed.body).toMatchObject({ id: first.body.id, status: "INVITED" });
    // NONE adds the user directly: ACTIVE, no invitation; then the e-mail is an active member.
    const sso = await invite("sso@example.com", "NONE");
    expect(sso.status).toBe(201);
    expect(sso.body.status).toBe("ACTIVE");
    expectProblem(await invite("sso@example.com", "EMAIL_LINK"), 409, "resource-conflict");
    expectProblem(await invite("idem@example.com", "NONE"), 409, "resource-conflict");
  });

  it("a duplicate e-mail (any case) is 409", async () => {
    const body = (email: string) => ({
      name: "dup",
      email,
      role: { type: "PREDEFINED", name: "MEMBER" },
      invite_mode: "NONE",
    });
    expect((await api.req("POST", "/v2/users", { body: body("dup@example.com") })).status).toBe(
      201,
    );
    expectProblem(
      await api.req("POST", "/v2/users", { body: body("DUP@example.com") }),
      409,
      "resource-conflict",
    );
  });

  it("a user without USER_READ sees themself and nobody else (404)", async () => {
    const a = await newUser(api, db, "ANNOTATOR");
    expect((await api.req("GET", `/v2/users/${a.id}`, { key: a.key })).status).toBe(200);
    expectProblem(
      await api.req("GET", `/v2/users/${adminId}`, { key: a.key }),
      404,
      "resource-not-found",
    );
    expectProblem(await api.req("GET", "/v2/users", { key: a.key }), 403, "access-forbidden");
  });

  it("deleting a user stops its key on the very next request, and is for good", async () => {
    const u = await newUser(api, db, "MEMBER");
    expect((await api.req("GET", "/v2/spaces", { key: u.key })).status).toBe(200);
    expect((await api.req("DELETE", `/v2/users/${u.id}`)).status).toBe(204);
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: u.key }),
      401,
      "authentication-required",
    );
    expectProblem(await api.req("GET", `/v2/users/${u.id}`), 404, "resource-not-found");
    // The public API: blocking a blocked user again is 204, and a blocked user's e-mail is
    // not invited again, in any mode (inactive is a terminal state).
    expect((await api.req("DELETE", `/v2/users/${u.id}`)).status).toBe(204);
    for (const invite_mode of ["EMAIL_LINK", "NONE", "TEMPORARY_PASSWORD"])
      expectProblem(
        await api.req("POST", "/v2/users", {
          body: {
            name: "again",
            email: u.body.email.toUpperCase(),
            role: { type: "PREDEFINED", name: "MEMBER" },
            invite_mode,
          },
        }),
        409,
        "resource-conflict",
      );
  });

  it("an admin cannot delete themself (400); members cannot delete (403)", async () => {
    expectProblem(await api.req("DELETE", `/v2/users/${adminId}`), 400, "invalid-request");
    const m = await newUser(api, db, "MEMBER");
    const other = await newUser(api, db, "MEMBER");
    expectProblem(
      await api.req("DELETE", `/v2/users/${other.id}`, { key: m.key }),
      403,
      "access-forbidden",
    );
  });
});

describe("PATCH /v2/users/{user_id} (spec endpoint 11)", () => {
  const patch = (id: string, body: unknown, key?: string) =>
    api.req("PATCH", `/v2/users/${id}`, { body, key });

  it("trims the name; 255 characters after trimming is accepted, 256 is 400", async () => {
    const u = await newUser(api, db, "MEMBER");
    const ok = await patch(u.id, { name: `  ${"n".repeat(255)}  ` });
    expect(ok.status).toBe(200);
    expect(ok.body.name).toBe("n".repeat(255));
    expectProblem(await patch(u.id, { name: "n".repeat(256) }), 400, "invalid-request");
    const one = await patch(u.id, { name: " a " });
    expect(one.body.name).toBe("a");
  });

  it("an empty or whitespace-only name is 400", async () => {
    const u = await newUser(api, db, "MEMBER");
    expectProblem(await patch(u.id, { name: "" }), 400, "invalid-request");
    expectProblem(await patch(u.id, { name: " \t\n " }), 400, "invalid-request");
  });

  it("at least one field is required; unknown fields are rejected", async () => {
    const u = await newUser(api, db, "MEMBER");
    expectProblem(await patch(u.id, {}), 400, "invalid-request");
    expectProblem(await patch(u.id, { email: "a@b.c" }), 400, "invalid-request");
  });

  it("is_developer: account admins only; anyone else including it gets 403", async () => {
    const u = await newUser(api, db, "MEMBER");
    const res = await patch(u.id, { is_developer: false });
    expect(res.status).toBe(200);
    expect(res.body.is_developer).toBe(false);
    const m = await newUser(api, db, "MEMBER");
    expectProblem(await patch(u.id, { is_developer: true }, m.key), 403, "access-forbidden");
    expectProblem(
      await patch(m.id, { is_developer: true, name: "me" }, m.key),
      403,
      "access-forbidden",
    );
  });

  it("setting the current values is a no-op: 200 and no event", async () => {
    const u = await newUser(api, db, "MEMBER");
    const count = async () =>
      Number(
        (
          await db.query("select count(*) from events where stream_id = $1", [
            `user-${uuidOf(u.id)}`,
          ])
        ).rows[0].count,
      );
    const before = await count();
    const res = await patch(u.id, { is_developer: true, name: u.body.name });
    expect(res.status).toBe(200);
    // The user as created (create_user's 201 adds only its invite_mode).
    expect({ ...res.body, invite_mode: u.body.invite_mode }).toEqual(u.body);
    expect(await count()).toBe(before);
  });

  it("the name needs USER_UPDATE: a member without it gets 403, with a custom role holding it 200", async () => {
    const target = await newUser(api, db, "MEMBER");
    const m = await newUser(api, db, "MEMBER");
    expectProblem(await patch(target.id, { name: "renamed" }, m.key), 403, "access-forbidden");
    const role = await api.req("POST", "/v2/roles", {
      body: { name: `user editors ${Math.random()}`, permissions: ["USER_UPDATE", "USER_READ"] },
    });
    expect(role.status).toBe(201);
    const space = await newSpace();
    const bound = await api.req("POST", "/v2/role-bindings", {
      body: { role_id: role.body.id, user_id: m.id, resource_type: "SPACE", resource_id: space },
    });
    expect(bound.status).toBe(201);
    const res = await patch(target.id, { name: "renamed" }, m.key);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("renamed");
  });

  it("members invite members and annotators, never admins; USER_CREATE and USER_DELETE reach a custom role's holder", async () => {
    const m = await newUser(api, db, "MEMBER");
    const a = await newUser(api, db, "ANNOTATOR");
    const tag = randomUUID();
    const invite = (role: string, mode = "EMAIL_LINK", key = m.key) =>
      api.req("POST", "/v2/users", {
        key,
        body: {
          name: "invitee",
          email: `${role.toLowerCase()}-${mode.toLowerCase()}-${tag}@example.com`,
          role: { type: "PREDEFINED", name: role },
          invite_mode: mode,
        },
      });
    const made = async () =>
      (await api.req("GET", `/v2/users?email=${tag}&limit=100`)).body.users
        .map((u: Json) => u.email)
        .sort();
    expectProblem(await invite("MEMBER", "NONE", a.key), 403, "access-forbidden");
    // An admin made by a non-admin would be the admin role (its temporary password is answered).
    for (const mode of ["EMAIL_LINK", "TEMPORARY_PASSWORD", "NONE"])
      expectProblem(await invite("ADMIN", mode), 403, "access-forbidden");
    expect(await made()).toEqual([]);
    // Nor an admin's invitation renewed, whatever role is asked for; the developer flag is the
    // admin role's to set, as in update_user.
    const pendingAdmin = await newUser(api, db, "ADMIN");
    for (const role of ["MEMBER", "ADMIN"])
      expectProblem(
        await api.req("POST", "/v2/users", {
          key: m.key,
          body: {
            name: "again",
            email: pendingAdmin.body.email,
            role: { type: "PREDEFINED", name: role },
            invite_mode: "EMAIL_LINK",
          },
        }),
        403,
        "access-forbidden",
      );
    expectProblem(
      await api.req("POST", "/v2/users", {
        key: m.key,
        body: {
          name: "dev",
          email: `dev-${tag}@example.com`,
          role: { type: "PREDEFINED", name: "ANNOTATOR" },
          invite_mode: "NONE",
          is_developer: true,
        },
      }),
      403,
      "access-forbidden",
    );
    const member = await invite("MEMBER");
    expect(member.status).toBe(201);
    expect(member.body).toMatchObject({ status: "INVITED", role: { name: "MEMBER" } });
    expect((await invite("ANNOTATOR", "NONE")).status).toBe(201);
    expect(await made()).toEqual([
      `annotator-none-${tag}@example.com`,
      `member-email_link-${tag}@example.com`,
    ]);
    // Resending and deleting need USER_CREATE and USER_DELETE, which no predefined role holds.
    const resend = () =>
      api.req("POST", `/v2/users/${member.body.id}/resend-invitation`, { key: m.key });
    const remove = (id: string) => api.req("DELETE", `/v2/users/${id}`, { key: m.key });
    expectProblem(await resend(), 403, "access-forbidden");
    expectProblem(await remove(member.body.id), 403, "access-forbidden");
    const role = await api.req("POST", "/v2/roles", {
      body: {
        name: `user managers ${Math.random()}`,
        permissions: ["USER_CREATE", "USER_DELETE", "USER_READ"],
      },
    });
    const bound = await api.req("POST", "/v2/role-bindings", {
      body: {
        role_id: role.body.id,
        user_id: m.id,
        resource_type: "SPACE",
        resource_id: await newSpace(),
      },
    });
    expect(bound.status).toBe(201);
    expect((await resend()).status).toBe(204);
    expectProblem(
      await api.req("POST", `/v2/users/${pendingAdmin.id}/resend-invitation`, { key: m.key }),
      403,
      "access-forbidden",
    );
    expect((await remove(member.body.id)).status).toBe(204);
    expectProblem(await api.req("GET", `/v2/users/${member.body.id}`), 404, "resource-not-found");
    // Still never an admin: neither added nor deleted.
    expectProblem(await invite("ADMIN", "TEMPORARY_PASSWORD"), 403, "access-forbidden");
    const admin = await newUser(api, db, "ADMIN");
    expectProblem(await remove(admin.id), 403, "access-forbidden");
    expect((await api.req("GET", `/v2/users/${admin.id}`)).status).toBe(200);
  });

  it("only account admins bind a custom role with account-wide permissions (403 for a space admin)", async () => {
    const space = await newSpace();
    const spaceAdmin = await newUser(api, db, "MEMBER");
    await addSpaceUser(api, space, spaceAdmin.id, "ADMIN", orgId);
    const other = await newUser(api, db, "MEMBER");
    await addSpaceUser(api, space, other.id, "READ_ONLY", orgId);
    const role = async (permissions: string[]) =>
      (
        await api.req("POST", "/v2/roles", {
          body: { name: `r ${Math.random()}`.replace("0.", ""), permissions },
        })
      ).body.id as string;
    const userManager = await role(["USER_DELETE", "TAG_READ"]);
    const tagReader = await role(["TAG_READ"]);
    const bind = (roleId: string, userId: string, key = spaceAdmin.key, on = space) =>
      api.req("POST", "/v2/role-bindings", {
        key,
        body: { role_id: roleId, user_id: userId, resource_type: "SPACE", resource_id: on },
      });
    const third = await newUser(api, db, "MEMBER");
    // Bound on a space, USER_DELETE would reach every user of the account.
    expectProblem(await bind(userManager, third.id), 403, "access-forbidden");
    const plain = await bind(tagReader, third.id);
    expect(plain.status).toBe(201);
    expectProblem(
      await api.req("PATCH", `/v2/role-bindings/${plain.body.id}`, {
        key: spaceAdmin.key,
        body: { role_id: userManager },
      }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("POST", `/v2/spaces/${space}/users`, {
        key: spaceAdmin.key,
        body: { user_id: other.id, role: { type: "CUSTOM", id: userManager } },
      }),
      403,
      "access-forbidden",
    );
    const victim = await newUser(api, db, "MEMBER");
    expectProblem(
      await api.req("DELETE", `/v2/users/${victim.id}`, { key: spaceAdmin.key }),
      403,
      "access-forbidden",
    );
    // An account admin may.
    expect((await bind(userManager, other.id, api.stack.apiKey, await newSpace())).status).toBe(
      201,
    );
    expect((await api.req("DELETE", `/v2/users/${victim.id}`, { key: other.key })).status).toBe(
      204,
    );
  });

  it("an unknown or malformed user id is 404", async () => {
    expectProblem(await patch("VXNlcjpub3BlCg==", { name: "x" }), 404, "resource-not-found");
    expectProblem(
      await patch(Buffer.from("User:01900000-0000-7000-8000-000000000000").toString("base64"), {
        name: "x",
      }),
      404,
      "resource-not-found",
    );
  });

  it("works through @arizeai/ax-client", async () => {
    const u = await newUser(api, db, "MEMBER");
    const updated = await axUpdateUser({ client: ax(), userId: u.id, name: "  via client  " });
    expect(updated.name).toBe("via client");
    const page = await axListUsers({ client: ax(), limit: 100 });
    expect(page.data.map((x) => x.id)).toContain(u.id);
  });
});

describe("roles (spec endpoint 14)", () => {
  it("lists the four predefined roles with the permission sets of permissions.ts", async () => {
    const res = await api.req("GET", "/v2/roles?is_predefined=true");
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.roles.map((r: Json) => [r.name, r]));
    for (const r of PREDEFINED_ROLES) {
      expect(byName[r.name]).toMatchObject({ is_predefined: true });
      expect([...byName[r.name].permissions].sort()).toEqual([...r.permissions].sort());
    }
  });

  it("permissions are shown only to callers holding ROLE_READ", async () => {
    const annotator = await newUser(api, db, "ANNOTATOR");
    const hidden = await api.req("GET", `/v2/roles/${roleId("MEMBER")}`, { key: annotator.key });
    expect(hidden.status).toBe(200);
    expect(hidden.body).not.toHaveProperty("permissions");
    const shown = await api.req("GET", `/v2/roles/${roleId("MEMBER")}`);
    expect(shown.body.permissions).toEqual(expect.arrayContaining(["PROJECT_READ"]));
    const viaClient = await axGetRole({ client: ax(), roleId: roleId("READ_ONLY") });
    expect(viaClient.permissions?.length).toBe(predefinedRole("READ_ONLY").permissions.length);
  });

  it("an unknown role, or a custom role of nobody, is 404", async () => {
    expectProblem(
      await api.req(
        "GET",
        `/v2/roles/${Buffer.from("Role:01900000-0000-7000-8000-000000000000").toString("base64")}`,
      ),
      404,
      "resource-not-found",
    );
    expectProblem(await api.req("GET", "/v2/roles/Zm9vOmJhcg=="), 404, "resource-not-found");
  });

  it("predefined roles are immutable (403)", async () => {
    expectProblem(
      await api.req("PATCH", `/v2/roles/${roleId("MEMBER")}`, { body: { name: "x" } }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("DELETE", `/v2/roles/${roleId("MEMBER")}`),
      403,
      "access-forbidden",
    );
  });

  it("custom roles: create, validate, rename, replace permissions, 409 on a duplicate name", async () => {
    const name = `Data Scientist ${Math.random()}`;
    const created = await axCreateRole({
      client: ax(),
      name,
      description: "reads data",
      permissions: ["DATASET_READ", "PROJECT_READ"],
    });
    expect(created).toMatchObject({ name, isPredefined: false });
    expectProblem(
      await api.req("POST", "/v2/roles", {
        body: { name: name.toUpperCase(), permissions: ["TAG_READ"] },
      }),
      409,
      "resource-conflict",
    );
    expectProblem(
      await api.req("POST", "/v2/roles", { body: { name: "none", permissions: [] } }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/roles", {
        body: { name: "bad", permissions: ["NOT_A_PERMISSION"] },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/roles", {
        body: { name: "sys", permissions: ["TAG_READ"], id: "x" },
      }),
      400,
      "invalid-request",
    );
    // The public API's characters for a role name: letters, digits, spaces and some punctuation.
    for (const bad of ["a<b>", "Ops ✨", "tab\there"])
      for (const req of [
        () => api.req("POST", "/v2/roles", { body: { name: bad, permissions: ["TAG_READ"] } }),
        () => api.req("PATCH", `/v2/roles/${created.id}`, { body: { name: bad } }),
      ])
        expectProblem(await req(), 400, "invalid-request");
    const punctuated = `Ops/QA: [a-b_c] (it's "x") & #1 ${Math.random()}`.replace("0.", "");
    expect(
      (
        await api.req("POST", "/v2/roles", {
          body: { name: punctuated, permissions: ["TAG_READ"] },
        })
      ).status,
    ).toBe(201);
    expectProblem(
      await api.req("PATCH", `/v2/roles/${created.id}`, { body: {} }),
      400,
      "invalid-request",
    );
    const updated = await api.req("PATCH", `/v2/roles/${created.id}`, {
      body: { permissions: ["TAG_READ"] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name,
      permissions: ["TAG_READ"],
      description: "reads data",
    });
    // Cleared with null, or never given, a description is not answered (the public API's).
    const cleared = await api.req("PATCH", `/v2/roles/${created.id}`, {
      body: { description: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty("description");
    const bare = await api.req("POST", "/v2/roles", {
      body: { name: `bare ${Math.random()}`, permissions: ["TAG_READ"] },
    });
    expect(bare.status).toBe(201);
    expect(bare.body).not.toHaveProperty("description");
    expect((await api.req("GET", `/v2/roles/${bare.body.id}`)).body).not.toHaveProperty(
      "description",
    );
    const page = await axListRoles({ client: ax(), isPredefined: false });
    expect(page.data.map((r) => r.id)).toContain(created.id);
  });

  it("accepts every permission identifier of the spec", async () => {
    const res = await api.req("POST", "/v2/roles", {
      body: { name: `everything ${Math.random()}`, permissions: [...PERMISSIONS] },
    });
    expect(res.status).toBe(201);
    expect(res.body.permissions).toHaveLength(PERMISSIONS.length);
  });

  it("a role still bound cannot be deleted (409); unbound it can (204)", async () => {
    const role = await api.req("POST", "/v2/roles", {
      body: { name: `bound ${Math.random()}`, permissions: ["SPACE_READ"] },
    });
    const u = await newUser(api, db, "MEMBER");
    const space = await newSpace();
    const binding = await axCreateRoleBinding({
      client: ax(),
      roleId: role.body.id,
      userId: u.id,
      resourceType: "SPACE",
      resourceId: space,
    });
    expectProblem(await api.req("DELETE", `/v2/roles/${role.body.id}`), 409, "resource-conflict");
    expect((await api.req("DELETE", `/v2/role-bindings/${binding.id}`)).status).toBe(204);
    expect((await api.req("DELETE", `/v2/roles/${role.body.id}`)).status).toBe(204);
    expectProblem(await api.req("GET", `/v2/roles/${role.body.id}`), 404, "resource-not-found");
  });

  it("members cannot create roles (403)", async () => {
    const m = await newUser(api, db, "MEMBER");
    expectProblem(
      await api.req("POST", "/v2/roles", {
        key: m.key,
        body: { name: "m", permissions: ["TAG_READ"] },
      }),
      403,
      "access-forbidden",
    );
  });
});

describe("role bindings and effective permissions", () => {
  it("a binding grants access on the very next request; removing it takes it away", async () => {
    const m = await newUser(api, db, "MEMBER");
    const space = await newSpace(true);
    expectProblem(
      await api.req("GET", `/v2/spaces/${space}`, { key: m.key }),
      404,
      "resource-not-found",
    );
    const b = await api.req("POST", "/v2/role-bindings", {
      body: {
        role_id: roleId("READ_ONLY"),
        user_id: m.id,
        resource_type: "SPACE",
        resource_id: space,
      },
    });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({
      role_id: roleId("READ_ONLY"),
      user_id: m.id,
      resource_type: "SPACE",
      resource_id: space,
    });
    expect((await api.req("GET", `/v2/spaces/${space}`, { key: m.key })).status).toBe(200);
    // READ_ONLY cannot update the space; ADMIN can.
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { key: m.key, body: { description: "x" } }),
      403,
      "access-forbidden",
    );
    const upd = await api.req("PATCH", `/v2/role-bindings/${b.body.id}`, {
      body: { role_id: roleId("ADMIN") },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.role_id).toBe(roleId("ADMIN"));
    expect(
      (await api.req("PATCH", `/v2/spaces/${space}`, { key: m.key, body: { description: "x" } }))
        .status,
    ).toBe(200);
    expect((await api.req("GET", `/v2/role-bindings/${b.body.id}`, { key: m.key })).status).toBe(
      200,
    );
    expect((await api.req("DELETE", `/v2/role-bindings/${b.body.id}`)).status).toBe(204);
    expectProblem(
      await api.req("GET", `/v2/spaces/${space}`, { key: m.key }),
      404,
      "resource-not-found",
    );
    expectProblem(
      await api.req("GET", `/v2/role-bindings/${b.body.id}`),
      404,
      "resource-not-found",
    );
  });

  it("one binding per user and space (409); unknown role or user is 404", async () => {
    const m = await newUser(api, db, "MEMBER");
    const space = await newSpace();
    const body = {
      role_id: roleId("MEMBER"),
      user_id: m.id,
      resource_type: "SPACE",
      resource_id: space,
    };
    expect((await api.req("POST", "/v2/role-bindings", { body })).status).toBe(201);
    expectProblem(await api.req("POST", "/v2/role-bindings", { body }), 409, "resource-conflict");
    const ghost = Buffer.from("User:01900000-0000-7000-8000-000000000000").toString("base64");
    expectProblem(
      await api.req("POST", "/v2/role-bindings", { body: { ...body, user_id: ghost } }),
      404,
      "resource-not-found",
    );
    // A resource that is not there is refused as one not the caller's (403), admin or not.
    const noSpace = Buffer.from("Space:01900000-0000-7000-8000-000000000000").toString("base64");
    expectProblem(
      await api.req("POST", "/v2/role-bindings", { body: { ...body, resource_id: noSpace } }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("POST", "/v2/role-bindings", {
        key: m.key,
        body: { ...body, resource_id: noSpace },
      }),
      403,
      "access-forbidden",
    );
  });

  it("changing or deleting a binding without the rights to is a 404, even to its own user", async () => {
    const m = await newUser(api, db, "MEMBER");
    const space = await newSpace(true);
    const b = await api.req("POST", "/v2/role-bindings", {
      body: {
        role_id: roleId("MEMBER"),
        user_id: m.id,
        resource_type: "SPACE",
        resource_id: space,
      },
    });
    expect(b.status).toBe(201);
    // The member reads its own binding, and may neither change nor delete it.
    expect((await api.req("GET", `/v2/role-bindings/${b.body.id}`, { key: m.key })).status).toBe(
      200,
    );
    expectProblem(
      await api.req("PATCH", `/v2/role-bindings/${b.body.id}`, {
        key: m.key,
        body: { role_id: roleId("ADMIN") },
      }),
      404,
      "resource-not-found",
    );
    expectProblem(
      await api.req("DELETE", `/v2/role-bindings/${b.body.id}`, { key: m.key }),
      404,
      "resource-not-found",
    );
    // A custom role with ROLE_BINDING_CREATE alone may not change a binding: it takes DELETE too.
    const creator = await newUser(api, db, "MEMBER");
    const role = await api.req("POST", "/v2/roles", {
      body: {
        name: `binder ${Math.random()}`.replace(".", ""),
        permissions: ["SPACE_READ", "ROLE_BINDING_READ", "ROLE_BINDING_CREATE"],
      },
    });
    expect(role.status).toBe(201);
    expect(
      (
        await api.req("POST", "/v2/role-bindings", {
          body: {
            role_id: role.body.id,
            user_id: creator.id,
            resource_type: "SPACE",
            resource_id: space,
          },
        })
      ).status,
    ).toBe(201);
    expectProblem(
      await api.req("PATCH", `/v2/role-bindings/${b.body.id}`, {
        key: creator.key,
        body: { role_id: roleId("READ_ONLY") },
      }),
      404,
      "resource-not-found",
    );
    const after = await api.req("GET", `/v2/role-bindings/${b.body.id}`);
    expect(after.body.role_id).toBe(roleId("MEMBER"));
  });

  it("list filters by resource type and user; non-admins see only what they may read", async () => {
    const m = await newUser(api, db, "MEMBER");
    const space = await newSpace();
    await addSpaceUser(api, space, m.id, "READ_ONLY", orgId);
    const all = await api.req("GET", `/v2/role-bindings?resource_type=SPACE&user_id=${m.id}`);
    expect(all.status).toBe(200);
    expect(all.body.role_bindings).toHaveLength(1);
    const other = await newUser(api, db, "MEMBER");
    const seen = await api.req("GET", "/v2/role-bindings?resource_type=SPACE", { key: other.key });
    expect(seen.body.role_bindings.filter((b: Json) => b.user_id === m.id)).toHaveLength(0);
    expectProblem(await api.req("GET", "/v2/role-bindings"), 400, "invalid-request");
    // A user_id of no user of the account, or of no user at all: 404 (a malformed one: 400).
    const ghost = Buffer.from("User:01900000-0000-7000-8000-000000000000").toString("base64");
    for (const id of [ghost, Buffer.from(`Space:${randomUUID()}`).toString("base64")])
      expectProblem(
        await api.req(
          "GET",
          `/v2/role-bindings?resource_type=SPACE&user_id=${encodeURIComponent(id)}`,
        ),
        404,
        "resource-not-found",
      );
  });

  it("organization roles fit the account role: annotators only ANNOTATOR, others never it (400)", async () => {
    const org = await api.req("POST", "/v2/organizations", {
      body: { name: `org ${Math.random()}` },
    });
    const m = await newUser(api, db, "MEMBER");
    const a = await newUser(api, db, "ANNOTATOR");
    const add = (userId: string, role: string) =>
      api.req("POST", `/v2/organizations/${org.body.id}/users`, {
        body: { user_id: userId, role: { type: "PREDEFINED", name: role } },
      });
    expectProblem(await add(a.id, "ADMIN"), 400, "invalid-request");
    expectProblem(await add(m.id, "ANNOTATOR"), 400, "invalid-request");
    expect((await add(a.id, "ANNOTATOR")).status).toBe(200);
    expect((await add(m.id, "MEMBER")).status).toBe(200);
  });

  it("an organization binding makes a member; only the organization ADMIN role reaches its spaces", async () => {
    const org = await api.req("POST", "/v2/organizations", {
      body: { name: `org ${Math.random()}` },
    });
    const s1 = await newSpace(true, org.body.id);
    const s2 = await newSpace(true, org.body.id);
    const pub = await newSpace(false, org.body.id);
    const m = await newUser(api, db, "MEMBER");
    const add = await api.req("POST", `/v2/organizations/${org.body.id}/users`, {
      body: { user_id: m.id, role: { type: "PREDEFINED", name: "MEMBER" } },
    });
    expect(add.status).toBe(200);
    expect(add.body).toMatchObject({
      user_id: m.id,
      organization_id: org.body.id,
      role: { name: "MEMBER" },
    });
    // (1) Organization MEMBER alone: private spaces stay hidden (404) ...
    for (const s of [s1, s2])
      expectProblem(
        await api.req("GET", `/v2/spaces/${s}`, { key: m.key }),
        404,
        "resource-not-found",
      );
    // ... and a public space is read as by any account member, nothing more.
    expect((await api.req("GET", `/v2/spaces/${pub}`, { key: m.key })).status).toBe(200);
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${pub}`, { key: m.key, body: { description: "no" } }),
      403,
      "access-forbidden",
    );
    // (2) Organization ADMIN: sees and manages every space of it, private ones included.
    await addOrganizationUser(api, org.body.id, m.id, "ADMIN");
    expect((await api.req("GET", `/v2/spaces/${s1}`, { key: m.key })).status).toBe(200);
    const patched = await api.req("PATCH", `/v2/spaces/${s2}`, {
      key: m.key,
      body: { description: "by the organization admin" },
    });
    expect(patched.status).toBe(200);
    const listed = await api.req("GET", "/v2/spaces", { key: m.key });
    expect(listed.body.spaces.map((x: Json) => x.id)).toEqual(expect.arrayContaining([s1, s2]));
    const other = await newUser(api, db, "MEMBER");
    await addOrganizationUser(api, org.body.id, other.id, "READ_ONLY");
    const added = await api.req("POST", `/v2/spaces/${s1}/users`, {
      key: m.key,
      body: { user_id: other.id, role: { type: "PREDEFINED", name: "MEMBER" } },
    });
    expect(added.status).toBe(200);
    expect((await api.req("GET", `/v2/spaces/${s1}`, { key: other.key })).status).toBe(200);
    // Not in another organization's private spaces.
    expectProblem(
      await api.req("GET", `/v2/spaces/${await newSpace(true)}`, { key: m.key }),
      404,
      "resource-not-found",
    );
    expect((await api.req("DELETE", `/v2/organizations/${org.body.id}/users/${m.id}`)).status).toBe(
      204,
    );
    expectProblem(
      await api.req("GET", `/v2/spaces/${s1}`, { key: m.key }),
      404,
      "resource-not-found",
    );
  });

  it("remove_organization_user removes the user from the organization's spaces too, no others", async () => {
    const org = await api.req("POST", "/v2/organizations", {
      body: { name: `org ${Math.random()}` },
    });
    const [inside, alsoInside] = [
      await newSpace(true, org.body.id),
      await newSpace(true, org.body.id),
    ];
    const outside = await newSpace(true);
    const m = await newUser(api, db, "MEMBER");
    await addOrganizationUser(api, org.body.id, m.id, "MEMBER");
    await addOrganizationUser(api, orgId, m.id, "MEMBER");
    const member = { user_id: m.id, role: { type: "PREDEFINED", name: "MEMBER" } };
    for (const space of [inside, alsoInside, outside])
      expect((await api.req("POST", `/v2/spaces/${space}/users`, { body: member })).status).toBe(
        200,
      );
    for (const space of [inside, alsoInside, outside])
      expect((await api.req("GET", `/v2/spaces/${space}`, { key: m.key })).status).toBe(200);

    expect((await api.req("DELETE", `/v2/organizations/${org.body.id}/users/${m.id}`)).status).toBe(
      204,
    );
    for (const space of [inside, alsoInside])
      expectProblem(
        await api.req("GET", `/v2/spaces/${space}`, { key: m.key }),
        404,
        "resource-not-found",
      );
    expect((await api.req("GET", `/v2/spaces/${outside}`, { key: m.key })).status).toBe(200);
    const bindings = await api.req(
      "GET",
      `/v2/role-bindings?resource_type=SPACE&user_id=${encodeURIComponent(m.id)}&limit=100`,
    );
    expect(bindings.body.role_bindings.map((b: Json) => b.resource_id)).toEqual([outside]);
    // Removed already: the membership is gone, and so is the answer.
    expectProblem(
      await api.req("DELETE", `/v2/organizations/${org.body.id}/users/${m.id}`),
      404,
      "resource-not-found",
    );
  });

  it("add_space_user racing remove_organization_user never leaves a space binding behind", async () => {
    const member = (id: string) => ({ user_id: id, role: { type: "PREDEFINED", name: "MEMBER" } });
    for (let round = 0; round < 4; round++) {
      const org = await api.req("POST", "/v2/organizations", {
        body: { name: `race org ${round} ${Math.random()}` },
      });
      const spaces = [];
      for (let i = 0; i < 4; i++) spaces.push(await newSpace(true, org.body.id));
      const m = await newUser(api, db, "MEMBER");
      await addOrganizationUser(api, org.body.id, m.id, "MEMBER");
      const [removed, ...added] = await Promise.all([
        api.req("DELETE", `/v2/organizations/${org.body.id}/users/${m.id}`),
        ...spaces.map((s) => api.req("POST", `/v2/spaces/${s}/users`, { body: member(m.id) })),
      ]);
      expect(removed.status).toBe(204);
      // Each add either went first (and the removal took it along) or found no membership.
      for (const a of added) expect([200, 400], JSON.stringify(a.body)).toContain(a.status);
      const left = await api.req(
        "GET",
        `/v2/role-bindings?resource_type=SPACE&user_id=${encodeURIComponent(m.id)}&limit=100`,
      );
      expect(left.body.role_bindings).toEqual([]);
      for (const s of spaces)
        expectProblem(
          await api.req("GET", `/v2/spaces/${s}`, { key: m.key }),
          404,
          "resource-not-found",
        );
    }
  });

  it("add_space_user requires organization membership (400), account admins excepted", async () => {
    const org = await api.req("POST", "/v2/organizations", {
      body: { name: `org ${Math.random()}` },
    });
    const space = await newSpace(true, org.body.id);
    const m = await newUser(api, db, "MEMBER");
    const body = { user_id: m.id, role: { type: "PREDEFINED", name: "READ_ONLY" } };
    // (3) Not a member of the organization: no auto-enrollment.
    const refused = await api.req("POST", `/v2/spaces/${space}/users`, { body });
    expectProblem(refused, 400, "invalid-request");
    expect(JSON.stringify(refused.body)).toMatch(/organization/);
    expectProblem(
      await api.req("GET", `/v2/spaces/${space}`, { key: m.key }),
      404,
      "resource-not-found",
    );
    // A member of another organization only is not a member of this one.
    await addOrganizationUser(api, orgId, m.id, "MEMBER");
    expectProblem(
      await api.req("POST", `/v2/spaces/${space}/users`, { body }),
      400,
      "invalid-request",
    );
    await addOrganizationUser(api, org.body.id, m.id, "READ_ONLY");
    const ok = await api.req("POST", `/v2/spaces/${space}/users`, { body });
    expect(ok.status).toBe(200);
    expect((await api.req("GET", `/v2/spaces/${space}`, { key: m.key })).status).toBe(200);
    // (4) Account admins belong to every organization: added without an organization binding.
    const admin = await newUser(api, db, "ADMIN");
    const byAdmin = await api.req("POST", `/v2/spaces/${space}/users`, {
      body: { user_id: admin.id, role: { type: "PREDEFINED", name: "MEMBER" } },
    });
    expect(byAdmin.status).toBe(200);
  });

  it("annotators hold at most the ANNOTATOR permissions, whatever is bound", async () => {
    const a = await newUser(api, db, "ANNOTATOR");
    const space = await newSpace();
    await db.query(
      `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
         select gen_random_uuid(), account_id, $1, 'USER', $2, 'SPACE', $3, now(), now() from users where id = $2`,
      [predefinedRole("ADMIN").id, uuidOf(a.id), uuidOf(space)],
    );
    expect((await api.req("GET", `/v2/spaces/${space}`, { key: a.key })).status).toBe(200);
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { key: a.key, body: { description: "no" } }),
      403,
      "access-forbidden",
    );
  });

  it("space users: ANNOTATOR space role only for annotators (422); re-adding changes the role", async () => {
    const space = await newSpace();
    const m = await newUser(api, db, "MEMBER");
    const a = await newUser(api, db, "ANNOTATOR");
    await addOrganizationUser(api, orgId, m.id, "READ_ONLY");
    await addOrganizationUser(api, orgId, a.id, "ANNOTATOR");
    const bad = await api.req("POST", `/v2/spaces/${space}/users`, {
      body: { user_id: m.id, role: { type: "PREDEFINED", name: "ANNOTATOR" } },
    });
    expectProblem(bad, 422, "unprocessable-entity");
    const bad2 = await api.req("POST", `/v2/spaces/${space}/users`, {
      body: { user_id: a.id, role: { type: "PREDEFINED", name: "MEMBER" } },
    });
    expectProblem(bad2, 422, "unprocessable-entity");
    const first = await axAddSpaceUser({
      client: ax(),
      spaceId: space,
      userId: m.id,
      role: { type: "PREDEFINED", name: "READ_ONLY" },
    });
    const second = await addSpaceUser(api, space, m.id, "ADMIN", orgId);
    expect(second.id).toBe(first.id);
    expect(second.role).toEqual({ type: "PREDEFINED", name: "ADMIN" });
    expect((await api.req("DELETE", `/v2/spaces/${space}/users/${m.id}`)).status).toBe(204);
    expectProblem(
      await api.req("DELETE", `/v2/spaces/${space}/users/${m.id}`),
      404,
      "resource-not-found",
    );
  });

  it("revoked and expired keys do not authenticate (401)", async () => {
    const u = await newUser(api, db, "MEMBER");
    const revoked = await seedKey(api, db, u.id, { status: "REVOKED" });
    const expired = await seedKey(api, db, u.id, { expiresAt: new Date(Date.now() - 1000) });
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: revoked }),
      401,
      "authentication-required",
    );
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: expired }),
      401,
      "authentication-required",
    );
  });
});

describe("spaces and organizations: update, delete, cascade", () => {
  it("updates a space (no-op when unchanged); a duplicate name is 409; private is 404 to outsiders", async () => {
    const space = await newSpace(false);
    const updated = await axUpdateSpace({
      client: ax(),
      space,
      description: "new",
      isPrivate: true,
    });
    expect(updated).toMatchObject({ description: "new", isPrivate: true });
    const other = await newSpace(false);
    const name = (await api.req("GET", `/v2/spaces/${other}`)).body.name;
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { body: { name } }),
      409,
      "resource-conflict",
    );
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { body: {} }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { body: { name: "x".repeat(256) } }),
      400,
      "invalid-request",
    );
    // null clears a description; an empty one is refused, as the public API does.
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { body: { description: "" } }),
      400,
      "invalid-request",
    );
    expect((await api.req("GET", `/v2/spaces/${space}`)).body.description).toBe("new");
    const cleared = await api.req("PATCH", `/v2/spaces/${space}`, { body: { description: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description ?? "").toBe("");
    const m = await newUser(api, db, "MEMBER");
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space}`, { key: m.key, body: { description: "x" } }),
      404,
      "resource-not-found",
    );
  });

  it("deleting a space emits SpaceDeleted on the space's stream, with the actor", async () => {
    const space = await newSpace();
    expect((await api.req("DELETE", `/v2/spaces/${space}`)).status).toBe(204);
    expectProblem(await api.req("GET", `/v2/spaces/${space}`), 404, "resource-not-found");
    const ev = await db.query(
      "select event_type as type, metadata from events where stream_id = $1 order by global_position desc limit 1",
      [`space-${uuidOf(space)}`],
    );
    expect(ev.rows[0].type).toBe("SpaceDeleted");
    expect(ev.rows[0].metadata).toMatchObject({
      actor_user_id: uuidOf(adminId),
      space_id: uuidOf(space),
    });
  });

  it("deleting an organization deletes its spaces (one SpaceDeleted each) in one transaction", async () => {
    const org = await api.req("POST", "/v2/organizations", {
      body: { name: `gone ${Math.random()}` },
    });
    const s1 = await newSpace(false, org.body.id);
    const s2 = await newSpace(true, org.body.id);
    expect((await api.req("DELETE", `/v2/organizations/${org.body.id}`)).status).toBe(204);
    expectProblem(
      await api.req("GET", `/v2/organizations/${org.body.id}`),
      404,
      "resource-not-found",
    );
    for (const s of [s1, s2]) {
      expectProblem(await api.req("GET", `/v2/spaces/${s}`), 404, "resource-not-found");
      const ev = await db.query(
        "select event_type as type from events where stream_id = $1 order by global_position desc limit 1",
        [`space-${uuidOf(s)}`],
      );
      expect(ev.rows[0].type).toBe("SpaceDeleted");
    }
  });

  it("updates an organization; members cannot (403); a duplicate name is 409", async () => {
    const org = await api.req("POST", "/v2/organizations", {
      body: { name: `o ${Math.random()}` },
    });
    const res = await api.req("PATCH", `/v2/organizations/${org.body.id}`, {
      body: { description: "d" },
    });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe("d");
    const m = await newUser(api, db, "MEMBER");
    expectProblem(
      await api.req("PATCH", `/v2/organizations/${org.body.id}`, {
        key: m.key,
        body: { description: "x" },
      }),
      403,
      "access-forbidden",
    );
    const first = (await api.req("GET", `/v2/organizations/${orgId}`)).body.name;
    expectProblem(
      await api.req("PATCH", `/v2/organizations/${org.body.id}`, { body: { name: first } }),
      409,
      "resource-conflict",
    );
  });
});

describe("paging of users, roles and role bindings", () => {
  it("limit 1 to 100 (0 and 101 are 400); following cursors visits every item once", async () => {
    for (const path of ["/v2/users", "/v2/roles", "/v2/role-bindings?resource_type=SPACE"]) {
      const sep = path.includes("?") ? "&" : "?";
      expectProblem(await api.req("GET", `${path}${sep}limit=0`), 400, "invalid-request");
      expectProblem(await api.req("GET", `${path}${sep}limit=101`), 400, "invalid-request");
      const all = await api.req("GET", `${path}${sep}limit=100`);
      expect(all.status).toBe(200);
      const key = Object.keys(all.body).find((k) => k !== "pagination")!;
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await api.req(
          "GET",
          `${path}${sep}limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        expect(page.status).toBe(200);
        expect(page.body[key].length).toBeLessThanOrEqual(1);
        seen.push(...page.body[key].map((x: Json) => x.id));
        cursor = page.body.pagination.has_more ? page.body.pagination.next_cursor : undefined;
      } while (cursor);
      expect(seen).toEqual(all.body[key].map((x: Json) => x.id));
      expect(new Set(seen).size).toBe(seen.length);
    }
  });
});

describe("custom role assignments", () => {
  it("CUSTOM account roles are not yet supported (422), as the public API says", async () => {
    const res = await api.req("POST", "/v2/users", {
      body: {
        name: "c",
        email: "custom@example.com",
        role: { type: "CUSTOM", id: roleId("MEMBER") },
        invite_mode: "NONE",
      },
    });
    expectProblem(res, 422, "unprocessable-entity");
    expect(res.body.detail).toMatch(/custom account roles .* not yet supported/);
    // Nothing was created: the e-mail is still free.
    const users = await api.req("GET", "/v2/users?email=custom@example.com");
    expect(users.body.users).toEqual([]);
    // A CUSTOM role without its id, or with a name, is a malformed body (400).
    for (const role of [{ type: "CUSTOM" }, { type: "CUSTOM", id: roleId("MEMBER"), name: "x" }])
      expectProblem(
        await api.req("POST", "/v2/users", {
          body: { name: "c", email: "custom@example.com", role, invite_mode: "NONE" },
        }),
        400,
        "invalid-request",
      );
    // update_user has no role at all in the public API: changing it is an unknown field (400).
    const m = await newUser(api, db, "MEMBER");
    expectProblem(
      await api.req("PATCH", `/v2/users/${m.id}`, {
        body: { role: { type: "CUSTOM", id: roleId("MEMBER") } },
      }),
      400,
      "invalid-request",
    );
  });

  it("a space user may hold a custom role: it answers as CUSTOM with id and name", async () => {
    const role = await api.req("POST", "/v2/roles", {
      body: { name: `custom space ${Math.random()}`, permissions: ["SPACE_READ", "TAG_READ"] },
    });
    const space = await newSpace(true);
    const m = await newUser(api, db, "MEMBER");
    await addOrganizationUser(api, orgId, m.id, "READ_ONLY");
    const res = await api.req("POST", `/v2/spaces/${space}/users`, {
      body: { user_id: m.id, role: { type: "CUSTOM", id: role.body.id } },
    });
    expect(res.status).toBe(200);
    expect(res.body.role).toEqual({ type: "CUSTOM", id: role.body.id, name: role.body.name });
    expect((await api.req("GET", `/v2/spaces/${space}`, { key: m.key })).status).toBe(200);
  });
});

describe("create_user's invite_mode and temporary password; POST /v2/users/{id}/reset-password", () => {
  const create = (email: string, invite_mode: string, key?: string) =>
    api.req("POST", "/v2/users", {
      key,
      body: { name: "pw", email, role: { type: "PREDEFINED", name: "MEMBER" }, invite_mode },
    });
  const reset = (id: string, key?: string | null) =>
    api.req("POST", `/v2/users/${id}/reset-password`, { key });

  it("TEMPORARY_PASSWORD: ACTIVE at once, the password answered once and stored only as a hash", async () => {
    const res = await create("temp-pw@example.com", "TEMPORARY_PASSWORD");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "ACTIVE", invite_mode: "TEMPORARY_PASSWORD" });
    const password = res.body.temporary_password as string;
    expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
    const stored = await db.query(
      "select password_hash, must_change from user_passwords where user_id = $1",
      [uuidOf(res.body.id)],
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].must_change).toBe(true);
    expect(stored.rows[0].password_hash.toString("utf8")).not.toContain(password);
    const leaked = await db.query(
      "select count(*)::int as n from events where data::text like $1",
      [`%${password}%`],
    );
    expect(leaked.rows[0].n).toBe(0);
    const got = await api.req("GET", `/v2/users/${res.body.id}`);
    expect(got.body).not.toHaveProperty("temporary_password");
    expect(got.body).not.toHaveProperty("invite_mode");
    // The e-mail is taken: no second password is ever issued.
    expectProblem(
      await create("temp-pw@example.com", "TEMPORARY_PASSWORD"),
      409,
      "resource-conflict",
    );
    expectProblem(await create("temp-pw@example.com", "EMAIL_LINK"), 409, "resource-conflict");
  });

  it("the 201 says the invite mode; the 200 of a still valid invitation is a bare User; others 400", async () => {
    const link = await create("mode-link@example.com", "EMAIL_LINK");
    expect(link.status).toBe(201);
    expect(link.body.invite_mode).toBe("EMAIL_LINK");
    expect(link.body).not.toHaveProperty("temporary_password");
    const again = await create("mode-link@example.com", "EMAIL_LINK");
    expect(again.status).toBe(200);
    expect(again.body).not.toHaveProperty("invite_mode");
    const none = await create("mode-none@example.com", "NONE");
    expect(none.body).toMatchObject({ invite_mode: "NONE", status: "ACTIVE" });
    expect(none.body).not.toHaveProperty("temporary_password");
    expectProblem(await create("mode-bad@example.com", "SMS"), 400, "invalid-request");
  });

  it("reset-password: 204 with a 30-minute token (replaced on each request) for a password user", async () => {
    const user = (await create("reset-me@example.com", "TEMPORARY_PASSWORD")).body;
    const res = await reset(user.id);
    expect(res.status).toBe(204);
    const token = async () =>
      (
        await db.query(
          "select token_hash, extract(epoch from expires_at - now()) as left from password_reset_tokens where user_id = $1",
          [uuidOf(user.id)],
        )
      ).rows;
    const [first] = await token();
    expect(Number(first.left)).toBeGreaterThan(29 * 60);
    expect(Number(first.left)).toBeLessThanOrEqual(30 * 60);
    expect((await reset(user.id)).status).toBe(204);
    const [second] = await token();
    expect(second.token_hash.equals(first.token_hash)).toBe(false);
  });

  it("reset-password: 400 without a password (NONE, EMAIL_LINK); 401; 404 unknown or unseen; 403 without USER_UPDATE", async () => {
    const sso = (await create("reset-sso@example.com", "NONE")).body;
    expectProblem(await reset(sso.id), 400, "invalid-request");
    const invited = (await create("reset-invited@example.com", "EMAIL_LINK")).body;
    expectProblem(await reset(invited.id), 400, "invalid-request");
    const target = (await create("reset-target@example.com", "TEMPORARY_PASSWORD")).body;
    expectProblem(await reset(target.id, null), 401, "authentication-required");
    expectProblem(
      await reset(Buffer.from("User:01900000-0000-7000-8000-000000000000").toString("base64")),
      404,
      "resource-not-found",
    );
    const annotator = await newUser(api, db, "ANNOTATOR");
    expectProblem(await reset(target.id, annotator.key), 404, "resource-not-found");
    const reader = await newUser(api, db, "MEMBER");
    await addSpaceUser(api, await newSpace(), reader.id, "READ_ONLY", orgId);
    expect((await api.req("GET", `/v2/users/${target.id}`, { key: reader.key })).status).toBe(200);
    expectProblem(await reset(target.id, reader.key), 403, "access-forbidden");
    const rows = await db.query("select 1 from password_reset_tokens where user_id = $1", [
      uuidOf(target.id),
    ]);
    expect(rows.rows).toHaveLength(0);
  });
});
