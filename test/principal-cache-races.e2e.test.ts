import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addOrganizationUser, identityDb, newUser } from "./identity-fixtures.ts";
import {
  cacheOutcome,
  get,
  spawnGateway,
  untilCached,
  type ExtraGateway,
} from "./principal-cache-support.ts";
import { startApi, type Api } from "./support.ts";

// Issue 8, item 2: three gateways cache principals while a client hammers them with one key;
// once the change that takes the key's access away has returned, no request sent after it
// succeeds on any gateway (docs/architecture.md, "Principal cache and invalidation").

let api: Api;
let db: pg.Pool;
let orgId: string;
const gateways: { name: string; url: string; log: string[] }[] = [];
const extra: ExtraGateway[] = [];

beforeAll(async () => {
  const mainLog: string[] = [];
  api = await startApi({
    onLine: (line) => {
      if (line.startsWith("[gateway] ")) mainLog.push(line.slice("[gateway] ".length));
    },
  });
  db = identityDb(api);
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  extra.push(await spawnGateway(api, "gateway-2"), await spawnGateway(api, "gateway-3"));
  gateways.push(
    { name: "gateway-1", url: api.stack.baseUrl, log: mainLog },
    ...extra.map((g, i) => ({ name: `gateway-${i + 2}`, url: g.url, log: g.log })),
  );
}, 180_000);

afterAll(async () => {
  for (const g of extra) await g.process.stop();
  await db?.end();
  await api?.stop();
});

interface Sent {
  gateway: string;
  sentAt: number;
  status: number;
  requestId: string;
}

/**
 * Hammers every gateway with `key` on `path` (two clients each) while `change` runs through
 * one of them; returns every request with its send time, and when the change's answer came.
 */
async function hammerDuring(
  key: string,
  path: string,
  change: () => Promise<number>,
): Promise<{ sent: Sent[]; changedAt: number }> {
  for (const g of gateways) await untilCached(g, key, path);
  const sent: Sent[] = [];
  let stop = false;
  const client = async (g: (typeof gateways)[number]) => {
    while (!stop) {
      const sentAt = performance.now();
      const r = await get(g.url, key, path);
      sent.push({ gateway: g.name, sentAt, status: r.status, requestId: r.requestId });
    }
  };
  const clients = gateways.flatMap((g) => [client(g), client(g)]);
  await new Promise((r) => setTimeout(r, 300));
  const status = await change();
  const changedAt = performance.now();
  expect(status).toBeLessThan(300);
  await new Promise((r) => setTimeout(r, 500));
  stop = true;
  await Promise.all(clients);
  return { sent, changedAt };
}

/** The race's verdict: successes before, none sent after the change returned, on any gateway. */
function expectNoSuccessAfter(
  { sent, changedAt }: { sent: Sent[]; changedAt: number },
  refused: number,
): void {
  const before = sent.filter((s) => s.sentAt < changedAt);
  const after = sent.filter((s) => s.sentAt > changedAt);
  console.log(
    `${sent.length} requests on ${gateways.length} gateways: ${before.length} before the change ` +
      `(${before.filter((s) => s.status === 200).length} succeeded), ${after.length} after it ` +
      `(${after.filter((s) => s.status === refused).length} refused with ${refused})`,
  );
  expect(before.filter((s) => s.status === 200).length).toBeGreaterThan(0);
  for (const g of gateways)
    expect(after.filter((s) => s.gateway === g.name).length).toBeGreaterThan(0);
  expect(after.filter((s) => s.status !== refused)).toEqual([]);
  // The gateways did answer from their caches while the change ran.
  for (const g of gateways)
    expect(
      before.filter((s) => s.gateway === g.name && cacheOutcome(g.log, s.requestId) === "hit")
        .length,
      `${g.name} served from its cache`,
    ).toBeGreaterThan(0);
}

/** Each change goes through another gateway, so it is not always the one that caches least. */
let turn = 0;
async function via(method: string, path: string, body?: unknown): Promise<number> {
  const g = gateways[turn++ % gateways.length]!;
  const res = await fetch(`${g.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.stack.apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function newSpace(isPrivate: boolean): Promise<string> {
  const res = await api.req("POST", "/v2/spaces", {
    body: { organization_id: orgId, name: `s-${Math.random()}`, is_private: isPrivate },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe("no request sent after a change that takes access away succeeds, on any gateway", () => {
  it("revoking the key", async () => {
    const created = await api.req("POST", "/v2/api-keys", {
      body: { key_type: "USER", name: "hammered" },
    });
    const race = await hammerDuring(created.body.key, "/v2/spaces", () =>
      via("PUT", `/v2/api-keys/${created.body.id}/revoke`),
    );
    expectNoSuccessAfter(race, 401);
  }, 120_000);

  it("deleting the key's user", async () => {
    const u = await newUser(api, db, "MEMBER");
    const race = await hammerDuring(u.key, "/v2/spaces", () => via("DELETE", `/v2/users/${u.id}`));
    expectNoSuccessAfter(race, 401);
  }, 120_000);

  it("deleting the role binding that opened a private space", async () => {
    const u = await newUser(api, db, "MEMBER");
    const space = await newSpace(true);
    const binding = await api.req("POST", "/v2/role-bindings", {
      body: {
        role_id: await predefinedRoleId("READ_ONLY"),
        user_id: u.id,
        resource_type: "SPACE",
        resource_id: space,
      },
    });
    expect(binding.status).toBe(201);
    const race = await hammerDuring(u.key, `/v2/spaces/${space}`, () =>
      via("DELETE", `/v2/role-bindings/${binding.body.id}`),
    );
    expectNoSuccessAfter(race, 404);
  }, 120_000);

  it("removing a permission from the custom role the key's user holds", async () => {
    const u = await newUser(api, db, "MEMBER");
    const space = await newSpace(true);
    const role = await api.req("POST", "/v2/roles", {
      body: { name: `readers ${Math.random()}`, permissions: ["PROJECT_READ", "TAG_READ"] },
    });
    expect(role.status).toBe(201);
    const bound = await api.req("POST", "/v2/role-bindings", {
      body: { role_id: role.body.id, user_id: u.id, resource_type: "SPACE", resource_id: space },
    });
    expect(bound.status).toBe(201);
    const project = await api.req("POST", "/v2/projects", {
      body: { name: `p-${Math.random()}`, space_id: space },
    });
    expect(project.status).toBe(201);
    const path = `/v2/projects/${project.body.id}`;
    const refused = await refusalWithout(u.key, path, () =>
      hammerDuring(u.key, path, () =>
        via("PATCH", `/v2/roles/${role.body.id}`, { permissions: ["TAG_READ"] }),
      ),
    );
    expectNoSuccessAfter(refused.race, refused.status);
  }, 120_000);

  it("making a space private", async () => {
    const u = await newUser(api, db, "MEMBER");
    await addOrganizationUser(api, orgId, u.id, "READ_ONLY");
    const space = await newSpace(false);
    const race = await hammerDuring(u.key, `/v2/spaces/${space}`, () =>
      via("PATCH", `/v2/spaces/${space}`, { is_private: true }),
    );
    expectNoSuccessAfter(race, 404);
  }, 120_000);
});

/** The public id of a predefined role. */
async function predefinedRoleId(name: string): Promise<string> {
  const roles = await api.req("GET", "/v2/roles?is_predefined=true");
  return (roles.body.roles as { id: string; name: string }[]).find((r) => r.name === name)!.id;
}

/**
 * Runs the race, then learns which refusal the API gives once the permission is gone (403 or
 * 404 for a resource the caller may no longer read): the verdict is "that, every time".
 */
async function refusalWithout(
  key: string,
  path: string,
  run: () => Promise<{ sent: Sent[]; changedAt: number }>,
): Promise<{ race: { sent: Sent[]; changedAt: number }; status: number }> {
  const race = await run();
  const status = (await get(api.stack.baseUrl, key, path)).status;
  expect([403, 404]).toContain(status);
  return { race, status };
}
