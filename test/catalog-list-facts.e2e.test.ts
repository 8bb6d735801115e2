import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { identityDb, newUser, uuidOf } from "./identity-fixtures.ts";
import { startApi, type Api, type Json } from "./support.ts";

/*
 * Catalog lists choose rows through the catalog's copy of identity's facts (space_facts,
 * restricted_projects), fed by events and so possibly a moment behind. A change that takes a
 * right away must hold in lists as soon as identity answers it: each page is judged again on
 * identity's facts as of now. The tests make the copy stale on purpose (as a lagging consumer
 * would leave it) and list as an account member, whose reading of public spaces is exactly
 * what the copy decides.
 */
let api: Api;
let identity: pg.Pool;
let catalog: pg.Pool;
let orgId: string;
let member: string;

async function ok(res: Promise<{ status: number; body: Json }>, status = 200): Promise<Json> {
  const r = await res;
  if (r.status !== status) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Waits until the catalog's copy shows what `sql` (one row when caught up) asks for. */
async function caughtUp(sql: string, id: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await catalog.query(sql, [uuidOf(id)])).rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the catalog's copy never caught up: ${sql}`);
}
const copied = (spaceId: string) => caughtUp("select 1 from space_facts where id = $1", spaceId);

const listed = async (path: string, field: string) =>
  ((await ok(api.req("GET", path, { key: member })))[field] as Json[]).map((r) => r.id as string);

beforeAll(async () => {
  api = await startApi();
  identity = identityDb(api);
  catalog = new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=catalog",
    max: 2,
  });
  const orgs = await ok(api.req("GET", "/v2/organizations"));
  orgId = (orgs.organizations as Json[])[0]!.id as string;
  member = (await newUser(api, identity, "MEMBER")).key;
});

afterAll(async () => {
  await catalog?.end();
  await identity?.end();
  await api?.stop();
});

describe("catalog lists after a right was taken away", () => {
  it("a space made private: its tags leave the member's list at once, however stale the copy", async () => {
    const space = await ok(
      api.req("POST", "/v2/spaces", { body: { organization_id: orgId, name: "soon private" } }),
      201,
    );
    const tag = await ok(
      api.req("POST", "/v2/tags", { body: { space_id: space.id, name: "t" } }),
      201,
    );
    await copied(space.id as string);
    expect(await listed("/v2/tags", "tags")).toContain(tag.id);

    await ok(api.req("PATCH", `/v2/spaces/${space.id}`, { body: { is_private: true } }));
    // The copy as a consumer that had not yet seen SpaceUpdated would leave it.
    await caughtUp("select 1 from space_facts where id = $1 and is_private", space.id as string);
    await catalog.query("update space_facts set is_private = false where id = $1", [
      uuidOf(space.id as string),
    ]);
    expect(await listed("/v2/tags", "tags")).not.toContain(tag.id);
    expect((await api.req("GET", `/v2/tags/${tag.id}`, { key: member })).status).toBe(404);
  });

  it("a project restricted: it leaves the member's list at once, however stale the copy", async () => {
    const space = await ok(
      api.req("POST", "/v2/spaces", { body: { organization_id: orgId, name: "projects" } }),
      201,
    );
    const project = await ok(
      api.req("POST", "/v2/projects", { body: { space_id: space.id, name: "p" } }),
      201,
    );
    await copied(space.id as string);
    expect(await listed(`/v2/projects?space_id=${space.id}`, "projects")).toContain(project.id);

    await ok(api.req("POST", "/v2/resource-restrictions", { body: { resource_id: project.id } }));
    await caughtUp("select 1 from restricted_projects where project_id = $1", project.id as string);
    await catalog.query("delete from restricted_projects where project_id = $1", [
      uuidOf(project.id as string),
    ]);
    expect(await listed(`/v2/projects?space_id=${space.id}`, "projects")).not.toContain(project.id);
  });
});
