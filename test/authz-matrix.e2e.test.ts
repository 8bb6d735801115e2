/**
 * The authorization matrix, generated from the route table: every operation of identity's
 * groups (and any other operation declaring `x-argus-authz`) is called by every persona, and
 * the status class must be what the operation's declared rule says for that persona. A new
 * route of these groups fails this suite until it declares its rule and gets a recipe here.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PREDEFINED_ROLES, predefinedRole } from "@argus/platform";
import { HTTP_METHODS, loadDocument } from "../services/gateway/src/openapi/document.ts";
import { startApi, type Api, type Json } from "./support.ts";
import {
  addOrganizationUser,
  addSpaceUser,
  identityDb,
  newUser,
  seedKey,
  uuidOf,
} from "./identity-fixtures.ts";
import { catalogRecipes } from "./authz-catalog.ts";
import { contentRecipes } from "./authz-catalog-content.ts";
import { datasetRecipes, freshResourceRef } from "./authz-datasets.ts";
import { experimentRecipes } from "./authz-experiments.ts";
import { monitorRecipes } from "./authz-monitors.ts";

interface Authz {
  /** any: every authenticated caller; account: account-wide; space: in the target space. */
  scope: "any" | "account" | "space";
  /** "admin" = the account admin role itself; otherwise a permission identifier. */
  permission?: string;
  /** Permission needed to see the target at all (404 without it); default: space membership. */
  read?: string;
  /** Status for a caller who sees the target but lacks the permission (default 403). */
  deny?: 403 | 404;
  /** Status for a caller who cannot see the target space (default 404). */
  unseen?: 403 | 404;
  /** Account scope: the account's member role holds the permission too (annotators do not). */
  members?: boolean;
}

interface Persona {
  name: string;
  key: string | null;
  /** 401 whatever the route. */
  unauthenticated?: boolean;
  admin?: boolean;
  /** A user with the account's member role (service accounts act through bindings alone). */
  member?: boolean;
  /** Permissions in the target (private) space; null = not bound there (it is hidden). */
  inSpace: ReadonlySet<string> | null;
  /** Permissions held somewhere (account-wide checks). */
  anywhere: ReadonlySet<string>;
}

interface Request {
  method: string;
  path: string;
  body?: unknown;
}

const IDENTITY_TAGS = new Set([
  "Organizations",
  "Spaces",
  "Users",
  "Roles",
  "RoleBindings",
  "ResourceRestrictions",
]);

const perms = (...roles: ("ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR")[]) =>
  new Set<string>(roles.flatMap((r) => predefinedRole(r).permissions));

let api: Api;
let db: pg.Pool;
let orgId: string;
let personas: Persona[];
let users: Record<
  "spaceAdmin" | "reader" | "annotator" | "outsider" | "orgMember" | "orgAdmin",
  { id: string; key: string }
>;
/** The service account of the SERVICE key bound (MEMBER) in every target space. */
let boundServiceAccount: string;

const freshDatasetRef = (type: "dataset" | "experiment", space: string): Promise<string> =>
  freshResourceRef({ asAdmin, unique }, type, space);

const publicId = (type: string, uuid: string) => Buffer.from(`${type}:${uuid}`).toString("base64");
const unique = () => `m-${randomUUID()}`;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

/**
 * A private space where the space admin, reader and annotator personas are bound (they are
 * members of its organization since `beforeAll`).
 */
async function freshSpace(): Promise<string> {
  const space = await asAdmin("POST", "/v2/spaces", {
    organization_id: orgId,
    name: unique(),
    is_private: true,
  });
  await addSpaceUser(api, space.id, users.spaceAdmin.id, "ADMIN", null);
  await addSpaceUser(api, space.id, users.reader.id, "READ_ONLY", null);
  await addSpaceUser(api, space.id, users.annotator.id, "ANNOTATOR", null);
  // TEST SETUP: a direct row (create_role_binding with the bot user's id would do the same).
  await db.query(
    `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
       select gen_random_uuid(), account_id, $1, 'SERVICE_ACCOUNT', $2, 'SPACE', $3, now(), now()
         from spaces where id = $3`,
    [predefinedRole("MEMBER").id, boundServiceAccount, uuidOf(space.id)],
  );
  return space.id;
}

const freshUser = async () => (await newUser(api, db, "MEMBER")).id;
const freshRole = async () =>
  (await asAdmin("POST", "/v2/roles", { name: unique(), permissions: ["TAG_READ"] })).id as string;
const freshOrg = async () =>
  (await asAdmin("POST", "/v2/organizations", { name: unique() })).id as string;
async function freshBinding(): Promise<string> {
  const space = await freshSpace();
  const user = await freshUser();
  return (
    await asAdmin("POST", "/v2/role-bindings", {
      role_id: publicId("Role", predefinedRole("READ_ONLY").id),
      user_id: user,
      resource_type: "SPACE",
      resource_id: space,
    })
  ).id;
}
/** A project of its own space: a restriction names one that exists. */
const freshProjectId = async (): Promise<string> =>
  (
    (await asAdmin("POST", "/v2/projects", { space_id: await freshSpace(), name: unique() })) as {
      id: string;
    }
  ).id;

/** How to call each operation: fresh targets where a success would consume them. */
const IDENTITY_RECIPES: Record<string, () => Promise<Request>> = {
  list_organizations: async () => ({ method: "GET", path: "/v2/organizations" }),
  create_organization: async () => ({
    method: "POST",
    path: "/v2/organizations",
    body: { name: unique() },
  }),
  get_organization: async () => ({ method: "GET", path: `/v2/organizations/${orgId}` }),
  update_organization: async () => ({
    method: "PATCH",
    path: `/v2/organizations/${await freshOrg()}`,
    body: { description: "changed" },
  }),
  delete_organization: async () => ({
    method: "DELETE",
    path: `/v2/organizations/${await freshOrg()}`,
  }),
  add_organization_user: async () => ({
    method: "POST",
    path: `/v2/organizations/${await freshOrg()}/users`,
    body: { user_id: await freshUser(), role: { type: "PREDEFINED", name: "READ_ONLY" } },
  }),
  remove_organization_user: async () => {
    const org = await freshOrg();
    const user = await freshUser();
    await asAdmin("POST", `/v2/organizations/${org}/users`, {
      user_id: user,
      role: { type: "PREDEFINED", name: "READ_ONLY" },
    });
    return { method: "DELETE", path: `/v2/organizations/${org}/users/${user}` };
  },
  list_spaces: async () => ({ method: "GET", path: "/v2/spaces" }),
  create_space: async () => ({
    method: "POST",
    path: "/v2/spaces",
    body: { organization_id: orgId, name: unique() },
  }),
  get_space: async () => ({ method: "GET", path: `/v2/spaces/${await freshSpace()}` }),
  update_space: async () => ({
    method: "PATCH",
    path: `/v2/spaces/${await freshSpace()}`,
    body: { description: "changed" },
  }),
  delete_space: async () => ({ method: "DELETE", path: `/v2/spaces/${await freshSpace()}` }),
  add_space_user: async () => {
    const space = await freshSpace();
    // The user must already belong to the space's organization (400 otherwise).
    const user = await freshUser();
    await addOrganizationUser(api, orgId, user, "READ_ONLY");
    return {
      method: "POST",
      path: `/v2/spaces/${space}/users`,
      body: { user_id: user, role: { type: "PREDEFINED", name: "MEMBER" } },
    };
  },
  remove_space_user: async () => {
    const space = await freshSpace();
    const user = await freshUser();
    await addSpaceUser(api, space, user, "MEMBER", orgId);
    return { method: "DELETE", path: `/v2/spaces/${space}/users/${user}` };
  },
  list_users: async () => ({ method: "GET", path: "/v2/users" }),
  create_user: async () => ({
    method: "POST",
    path: "/v2/users",
    body: {
      name: "invitee",
      email: `${unique()}@example.com`,
      role: { type: "PREDEFINED", name: "MEMBER" },
      invite_mode: "NONE",
    },
  }),
  get_user: async () => ({ method: "GET", path: `/v2/users/${await freshUser()}` }),
  update_user: async () => ({
    method: "PATCH",
    path: `/v2/users/${await freshUser()}`,
    body: { name: "renamed" },
  }),
  delete_user: async () => ({ method: "DELETE", path: `/v2/users/${await freshUser()}` }),
  resend_user_invitation: async () => ({
    method: "POST",
    path: `/v2/users/${await freshUser()}/resend-invitation`,
  }),
  reset_user_password: async () => {
    const user = await asAdmin("POST", "/v2/users", {
      name: "reset",
      email: `${unique()}@example.com`,
      role: { type: "PREDEFINED", name: "MEMBER" },
      invite_mode: "TEMPORARY_PASSWORD",
    });
    return { method: "POST", path: `/v2/users/${user.id}/reset-password` };
  },
  list_roles: async () => ({ method: "GET", path: "/v2/roles" }),
  create_role: async () => ({
    method: "POST",
    path: "/v2/roles",
    body: { name: unique(), permissions: ["TAG_READ"] },
  }),
  get_role: async () => ({ method: "GET", path: `/v2/roles/${await freshRole()}` }),
  update_role: async () => ({
    method: "PATCH",
    path: `/v2/roles/${await freshRole()}`,
    body: { description: "changed" },
  }),
  delete_role: async () => ({ method: "DELETE", path: `/v2/roles/${await freshRole()}` }),
  list_role_bindings: async () => ({
    method: "GET",
    path: "/v2/role-bindings?resource_type=SPACE",
  }),
  create_role_binding: async () => ({
    method: "POST",
    path: "/v2/role-bindings",
    body: {
      role_id: publicId("Role", predefinedRole("MEMBER").id),
      user_id: await freshUser(),
      resource_type: "SPACE",
      resource_id: await freshSpace(),
    },
  }),
  get_role_binding: async () => ({
    method: "GET",
    path: `/v2/role-bindings/${await freshBinding()}`,
  }),
  update_role_binding: async () => ({
    method: "PATCH",
    path: `/v2/role-bindings/${await freshBinding()}`,
    body: { role_id: publicId("Role", predefinedRole("MEMBER").id) },
  }),
  delete_role_binding: async () => ({
    method: "DELETE",
    path: `/v2/role-bindings/${await freshBinding()}`,
  }),
  list_resource_restrictions: async () => ({ method: "GET", path: "/v2/resource-restrictions" }),
  create_resource_restriction: async () => ({
    method: "POST",
    path: "/v2/resource-restrictions",
    body: { resource_id: await freshProjectId() },
  }),
  delete_resource_restriction: async () => {
    const project = await freshProjectId();
    await asAdmin("POST", "/v2/resource-restrictions", { resource_id: project });
    return { method: "DELETE", path: `/v2/resource-restrictions/${project}` };
  },
};

/** Each service's recipes; a group's file adds its own (see authz-catalog.ts). */
const RECIPES: Record<string, () => Promise<Request>> = {
  ...IDENTITY_RECIPES,
  ...catalogRecipes({ asAdmin, freshSpace, unique, freshDatasetRef }),
  ...contentRecipes({ asAdmin, freshSpace, unique, freshDatasetRef }, () => api.stack),
  ...datasetRecipes({ asAdmin, freshSpace, unique, freshDatasetRef }),
  ...experimentRecipes({ asAdmin, freshSpace, unique, freshDatasetRef }),
  ...monitorRecipes({ asAdmin, freshSpace, unique, freshDatasetRef }),
};

/** What the declared rule says this persona gets: 2xx, 401, 403 or 404. */
export function expectedStatus(authz: Authz, p: Persona): "2xx" | 401 | 403 | 404 {
  if (p.unauthenticated) return 401;
  if (p.admin) return "2xx";
  if (authz.scope === "any") return "2xx";
  if (authz.scope === "account") {
    if (authz.read && !p.anywhere.has(authz.read)) return 404;
    if (authz.permission === "admin") return 403;
    if (authz.members && p.member) return "2xx";
    return authz.permission && p.anywhere.has(authz.permission) ? "2xx" : (authz.deny ?? 403);
  }
  if (p.inSpace === null) return authz.unseen ?? 404;
  if (authz.read && !p.inSpace.has(authz.read)) return 404;
  return authz.permission && p.inSpace.has(authz.permission) ? "2xx" : (authz.deny ?? 403);
}

const { document } = loadDocument();
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  HTTP_METHODS.flatMap((method) => {
    const op = item[method] as (Json & { operationId?: string; tags?: string[] }) | undefined;
    if (!op) return [];
    const authz = op["x-argus-authz"] as Authz | undefined;
    const ours = (op.tags ?? []).some((t) => IDENTITY_TAGS.has(t));
    return ours || authz ? [{ path, method, id: op.operationId!, authz }] : [];
  }),
);

beforeAll(async () => {
  api = await startApi();
  db = identityDb(api);
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  const make = (role: "MEMBER" | "ANNOTATOR") => newUser(api, db, role);
  users = {
    spaceAdmin: await make("MEMBER"),
    reader: await make("MEMBER"),
    annotator: await make("ANNOTATOR"),
    outsider: await make("MEMBER"),
    orgMember: await make("MEMBER"),
    orgAdmin: await make("MEMBER"),
  };
  // Organization roles: only ADMIN reaches the organization's spaces (private ones included);
  // MEMBER makes the user a member of the organization and grants nothing in its spaces.
  // The personas bound in the target spaces belong to their organization (add_space_user
  // requires it), once for all.
  await addOrganizationUser(api, orgId, users.spaceAdmin.id, "READ_ONLY");
  await addOrganizationUser(api, orgId, users.reader.id, "READ_ONLY");
  await addOrganizationUser(api, orgId, users.annotator.id, "ANNOTATOR");
  await addOrganizationUser(api, orgId, users.orgMember.id, "MEMBER");
  await addOrganizationUser(api, orgId, users.orgAdmin.id, "ADMIN");
  // Members read every public space (the initial space is public).
  const publicRead = perms("READ_ONLY");
  const initialSpace = (await api.req("GET", "/v2/spaces")).body.spaces.at(-1).id as string;
  const serviceKey = async (org: string, space: string) =>
    asAdmin("POST", "/v2/api-keys", {
      key_type: "SERVICE",
      name: unique(),
      organizations: [{ org_id: org, spaces: [{ space_id: space, role: { name: "MEMBER" } }] }],
    });
  const boundKey = await serviceKey(orgId, initialSpace);
  boundServiceAccount = uuidOf(boundKey.bot_user.id);
  // Bound elsewhere: a space of another organization only.
  const otherOrg = await freshOrg();
  const otherSpace = await asAdmin("POST", "/v2/spaces", {
    organization_id: otherOrg,
    name: unique(),
  });
  const elsewhereKey = await serviceKey(otherOrg, otherSpace.id);
  personas = [
    {
      name: "account admin",
      key: api.stack.apiKey,
      admin: true,
      inSpace: null,
      anywhere: new Set(),
    },
    {
      name: "member with the space ADMIN role",
      member: true,
      key: users.spaceAdmin.key,
      inSpace: perms("ADMIN"),
      anywhere: new Set([...perms("ADMIN"), ...publicRead]),
    },
    {
      name: "member with READ_ONLY",
      member: true,
      key: users.reader.key,
      inSpace: publicRead,
      anywhere: publicRead,
    },
    {
      name: "member not in the space",
      member: true,
      key: users.outsider.key,
      inSpace: null,
      anywhere: publicRead,
    },
    {
      name: "member with the organization MEMBER role only",
      member: true,
      key: users.orgMember.key,
      inSpace: null,
      anywhere: publicRead,
    },
    {
      name: "member with the organization ADMIN role",
      member: true,
      key: users.orgAdmin.key,
      inSpace: perms("ADMIN"),
      anywhere: new Set([...perms("ADMIN"), ...publicRead]),
    },
    {
      name: "annotator",
      key: users.annotator.key,
      inSpace: perms("ANNOTATOR"),
      anywhere: perms("ANNOTATOR"),
    },
    {
      name: "service key bound to the space",
      key: boundKey.key,
      inSpace: perms("MEMBER"),
      anywhere: perms("MEMBER"),
    },
    {
      name: "service key bound elsewhere",
      key: elsewhereKey.key,
      inSpace: null,
      anywhere: perms("MEMBER"),
    },
    {
      name: "revoked key",
      key: await seedKey(api, db, users.spaceAdmin.id, { status: "REVOKED" }),
      unauthenticated: true,
      inSpace: null,
      anywhere: new Set(),
    },
    {
      name: "expired key",
      key: await seedKey(api, db, users.spaceAdmin.id, { expiresAt: new Date(Date.now() - 1000) }),
      unauthenticated: true,
      inSpace: null,
      anywhere: new Set(),
    },
    { name: "no key", key: null, unauthenticated: true, inSpace: null, anywhere: new Set() },
  ];
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

describe("route table", () => {
  it("covers identity's groups, and every operation declares its rule and has a recipe", () => {
    expect(operations.length).toBeGreaterThanOrEqual(Object.keys(IDENTITY_RECIPES).length);
    for (const op of operations) {
      expect(op.authz, `${op.id} declares x-argus-authz`).toBeDefined();
      expect(RECIPES[op.id], `${op.id} has a recipe in authz-matrix.e2e.test.ts`).toBeDefined();
    }
  });

  it("the predefined roles used by the personas exist", () => {
    expect(PREDEFINED_ROLES.map((r) => r.name)).toEqual([
      "ADMIN",
      "MEMBER",
      "READ_ONLY",
      "ANNOTATOR",
    ]);
  });
});

describe.each(operations)("$method $path ($id)", (op) => {
  it("answers every persona as its rule says", async () => {
    const recipe = RECIPES[op.id];
    if (!recipe || !op.authz) throw new Error(`${op.id}: no recipe or no x-argus-authz`);
    const failures: string[] = [];
    for (const persona of personas) {
      const req = await recipe();
      const res = await api.req(req.method, req.path, { body: req.body, key: persona.key });
      const want = expectedStatus(op.authz, persona);
      const ok = want === "2xx" ? res.status >= 200 && res.status < 300 : res.status === want;
      if (!ok)
        failures.push(
          `${persona.name}: got ${res.status}, want ${want} ${JSON.stringify(res.body)}`,
        );
    }
    expect(failures).toEqual([]);
  });
});
