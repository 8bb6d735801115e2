import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityServiceService as S } from "@argus/proto/identity/v1";
import { ApiKeyServiceService as K } from "@argus/proto/identity/v1/api_keys";
import { predefinedRole } from "@argus/platform";
import { AccountRole } from "@argus/proto/common/v1";
import { problemOf, startIdentityUnderTest, type IdentityUnderTest } from "./identityUnderTest.ts";

/**
 * Updates and deletes of one aggregate, all at once: every answer is a success, 404 or 409
 * (never a 500), and the stream's history is one a single writer could have made — one
 * Deleted (or Revoked) event, last.
 */
let srv: IdentityUnderTest;
const call: IdentityUnderTest["call"] = (method, req) => srv.call(method, req);

/** 5 rounds of 10 updates and 10 deletes of a fresh aggregate, at once. */
async function race(
  make: () => Promise<string>,
  update: (id: string, i: number) => Promise<unknown>,
  remove: (id: string) => Promise<unknown>,
  stream: (id: string) => string,
  terminal: string,
  /** Other answers the rules give under a race (a refresh of a revoked key is 422). */
  also: string[] = [],
): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const id = await make();
    const [updates, removes] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, (_, i) => problemOf(update(id, i)))),
      Promise.all(Array.from({ length: 10 }, () => problemOf(remove(id)))),
    ]);
    const allowed = ["ok", "resource-not-found", "resource-conflict", ...also];
    for (const r of [...updates, ...removes]) expect(allowed).toContain(r);
    const history = await srv.sql.query<{ t: string }>(
      "select event_type as t from events where stream_id = $1 order by stream_version",
      [stream(id)],
    );
    const types = history.rows.map((r) => r.t);
    // A delete that answered ok (a revoke is idempotent: several may) means one Deleted event,
    // last. Under load every delete may lose its retries to the updates (409): then nothing
    // is deleted, also a history a single writer could have made.
    const deleted = removes.some((r) => r === "ok");
    expect(types.filter((t) => t === terminal)).toHaveLength(deleted ? 1 : 0);
    if (deleted) expect(types.at(-1)).toBe(terminal);
    else expect(removes.every((r) => r === "resource-conflict")).toBe(true);
  }
}

beforeAll(async () => {
  srv = await startIdentityUnderTest("race", `ak-int-${"r".repeat(40)}`);
});

afterAll(() => srv?.stop());

const unique = () => `n-${Math.random().toString(36).slice(2)}`;
const newUser = async () =>
  (
    await call(S.createUser, {
      name: "u",
      email: `${unique()}@example.com`,
      accountRole: "member",
      inviteMode: "NONE",
    })
  ).user!.id;

describe("concurrent updates and deletes decide on the stream's state", () => {
  it("organizations (with a space each)", async () => {
    await race(
      async () => {
        const org = await call(S.createOrganization, { name: unique(), description: "" });
        const space = { organizationId: org.id, name: "s", description: "", isPrivate: false };
        await call(S.createSpace, space);
        return org.id;
      },
      (id, i) => call(S.updateOrganization, { id, description: `d${i}` }),
      (id) => call(S.deleteOrganization, { id }),
      (id) => `organization-${id}`,
      "OrganizationDeleted",
    );
  });

  it("users", async () => {
    await race(
      newUser,
      (id, i) => call(S.updateUser, { id, name: `name ${i}` }),
      (id) => call(S.deleteUser, { id }),
      (id) => `user-${id}`,
      "UserDeleted",
    );
  });

  it("custom roles", async () => {
    await race(
      async () =>
        (await call(S.createRole, { name: unique(), description: "", permissions: ["TAG_READ"] }))
          .id,
      (id, i) =>
        call(S.updateRole, { id, description: `d${i}`, setPermissions: false, permissions: [] }),
      (id) => call(S.deleteRole, { id }),
      (id) => `role-${id}`,
      "RoleDeleted",
    );
  });

  it("role bindings", async () => {
    const space = srv.organizationId;
    await race(
      async () =>
        (
          await call(S.createRoleBinding, {
            roleId: predefinedRole("READ_ONLY").id,
            subjectType: "USER",
            subjectId: await newUser(),
            resourceType: "ORGANIZATION",
            resourceId: space,
          })
        ).id,
      (id, i) =>
        call(S.updateRoleBinding, {
          id,
          roleId: predefinedRole(i % 2 ? "MEMBER" : "ADMIN").id,
        }),
      (id) => call(S.deleteRoleBinding, { id }),
      (id) => `role_binding-${id}`,
      "RoleBindingDeleted",
    );
  });

  it("API keys: refreshes and revokes", async () => {
    await race(
      async () =>
        (
          await call(K.createApiKey, {
            keyType: "USER",
            name: "k",
            description: "",
            expiresAt: "",
            accountRole: "",
            organizations: [],
          })
        ).key!.id,
      (id) => call(K.refreshApiKey, { id, expiresAt: "", gracePeriodSeconds: 0 }),
      (id) => call(K.revokeApiKey, { id }),
      (id) => `api_key-${id}`,
      "ApiKeyRevoked",
      ["unprocessable-entity"],
    );
  });
});

describe("a command holds what it depends on until it commits", () => {
  const settle = (ps: Promise<unknown>[]) => Promise.all(ps.map(problemOf));

  it("spaces created while their organization is deleted are deleted with it, or not created", async () => {
    for (let round = 0; round < 5; round++) {
      const org = (await call(S.createOrganization, { name: unique(), description: "" })).id;
      const results = await settle([
        call(S.deleteOrganization, { id: org }),
        ...Array.from({ length: 10 }, (_, i) =>
          call(S.createSpace, {
            organizationId: org,
            name: `s${i}`,
            description: "",
            isPrivate: false,
          }),
        ),
      ]);
      for (const r of results)
        expect(["ok", "resource-not-found", "resource-conflict"]).toContain(r);
      const streams = await srv.sql.query<{ deleted: boolean }>(
        `select bool_or(event_type = 'SpaceDeleted') as deleted from events
          where stream_id in (select stream_id from events
                               where event_type = 'SpaceCreated' and data->>'organization_id' = $1)
          group by stream_id`,
        [org],
      );
      const orgDeleted = results[0] === "ok";
      for (const s of streams.rows) expect(s.deleted).toBe(orgDeleted);
    }
  });

  it("no role binding of a user survives the user's deletion", async () => {
    for (let round = 0; round < 5; round++) {
      const user = await newUser();
      const results = await settle([
        call(S.deleteUser, { id: user }),
        ...Array.from({ length: 10 }, (_, i) =>
          call(S.createRoleBinding, {
            roleId: predefinedRole("READ_ONLY").id,
            subjectType: "USER",
            subjectId: user,
            resourceType: "PROJECT",
            resourceId: `0192f4a0-0000-7000-8000-${String(round * 100 + i).padStart(12, "0")}`,
          }),
        ),
      ]);
      expect(results[0]).toBe("ok");
      for (const r of results) expect(["ok", "resource-not-found"]).toContain(r);
      const left = await srv.sql.query("select 1 from role_bindings where subject_id = $1", [user]);
      expect(left.rowCount).toBe(0);
    }
  });
  it("no key of a user stays ACTIVE after the user's deletion", async () => {
    for (let round = 0; round < 5; round++) {
      const user = await newUser();
      const asUser = { ...srv.admin, userId: user, accountRole: AccountRole.ACCOUNT_ROLE_MEMBER };
      const key = { keyType: "USER", name: "k", description: "", expiresAt: "", accountRole: "" };
      const results = await settle([
        call(S.deleteUser, { id: user }),
        ...Array.from({ length: 10 }, () =>
          srv.call(K.createApiKey, { ...key, organizations: [] }, asUser),
        ),
      ]);
      expect(results[0]).toBe("ok");
      for (const r of results) expect(["ok", "authentication-required"]).toContain(r);
      const active = await srv.sql.query(
        "select 1 from api_keys where user_id = $1 and status = 'ACTIVE'",
        [user],
      );
      expect(active.rowCount).toBe(0);
    }
  });
});
