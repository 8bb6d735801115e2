import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { identityDb, newUser } from "./identity-fixtures.ts";
import { answerError, startApi, type Api, type Json } from "./support.ts";

/*
 * Issue 8's sizes: an organization with 10 000 spaces, all public, so the account has 10 000
 * public spaces, plus a few private ones. An organization admin (a SERVICE key with the
 * organization role ADMIN), an account member (a USER key) and a SERVICE key bound to 100
 * spaces each get correct answers on get, list (paging through everything) and create. The
 * principal carries grants, not spaces: before, the organization admin's every request
 * failed (RESOURCE_EXHAUSTED) past about 2 000 spaces.
 */
const PUBLIC = 10_000;
const PRIVATE = 20;
const BOUND = 100;

let api: Api;
let db: pg.Pool;
let orgId: string;
const publicIds: string[] = [];
const privateIds: string[] = [];
let orgAdminKey: string;
let memberKey: string;
let boundKey: string;

/** Runs `tasks` with at most `width` in flight. */
async function pooled<T>(count: number, width: number, task: (i: number) => Promise<T>) {
  const out: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

async function ok(res: Promise<{ status: number; body: Json }>, status = 200): Promise<Json> {
  const r = await res;
  if (r.status !== status) throw answerError("", r, api.stack.report);
  return r.body;
}

const space = (name: string, isPrivate: boolean) =>
  ok(
    api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name, description: "", is_private: isPrivate },
    }),
    201,
  );

/** Every page of a list, with the largest page the API allows. */
async function all(path: string, key: string, field: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor = "";
  for (let pages = 0; pages < 1000; pages++) {
    const sep = path.includes("?") ? "&" : "?";
    const res = await ok(
      api.req(
        "GET",
        `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { key },
      ),
    );
    items.push(...(res[field] as Json[]));
    cursor = res.pagination?.next_cursor ?? "";
    if (!cursor) return items;
  }
  throw new Error("more than 1000 pages");
}

beforeAll(async () => {
  api = await startApi();
  db = identityDb(api);
  const org = await ok(
    api.req("POST", "/v2/organizations", { body: { name: "big", description: "" } }),
    201,
  );
  orgId = org.id;
  const made = await pooled(PUBLIC + PRIVATE, 12, (i) =>
    space(`s${String(i).padStart(5, "0")}`, i >= PUBLIC),
  );
  for (const [i, s] of made.entries()) (i < PUBLIC ? publicIds : privateIds).push(s.id as string);
  const serviceKey = async (org: Json) =>
    (
      await ok(
        api.req("POST", "/v2/api-keys", {
          body: { key_type: "SERVICE", name: "bot", organizations: [org] },
        }),
        201,
      )
    ).key as string;
  orgAdminKey = await serviceKey({
    org_id: orgId,
    role: { name: "ADMIN" },
    spaces: [{ space_id: publicIds[0] }],
  });
  boundKey = await serviceKey({
    org_id: orgId,
    spaces: [...publicIds.slice(0, BOUND - 1), privateIds[0]].map((id) => ({
      space_id: id,
      role: { name: "MEMBER" },
    })),
  });
  memberKey = (await newUser(api, db, "MEMBER")).key;
}, 900_000);

afterAll(async () => {
  await db?.end();
  await api?.stop();
});

describe("an organization of 10 000 spaces", () => {
  it("the organization admin gets, lists every space (private ones too) and creates", async () => {
    for (const id of [publicIds[PUBLIC - 1]!, privateIds[PRIVATE - 1]!])
      expect((await ok(api.req("GET", `/v2/spaces/${id}`, { key: orgAdminKey }))).id).toBe(id);
    const listed = await all(`/v2/spaces?org_id=${orgId}`, orgAdminKey, "spaces");
    expect(listed).toHaveLength(PUBLIC + PRIVATE);
    const tag = await ok(
      api.req("POST", "/v2/tags", {
        key: orgAdminKey,
        body: { space_id: privateIds[PRIVATE - 1], name: "from the org admin" },
      }),
      201,
    );
    const tags = await all(`/v2/tags?space_id=${privateIds[PRIVATE - 1]}`, orgAdminKey, "tags");
    expect(tags.map((t) => t.id)).toContain(tag.id);
  });

  it("an account member reads every public space, no private one, and creates nowhere", async () => {
    expect((await api.req("GET", `/v2/spaces/${publicIds[4242]}`, { key: memberKey })).status).toBe(
      200,
    );
    expect((await api.req("GET", `/v2/spaces/${privateIds[0]}`, { key: memberKey })).status).toBe(
      404,
    );
    const listed = await all(`/v2/spaces?org_id=${orgId}`, memberKey, "spaces");
    expect(listed).toHaveLength(PUBLIC);
    expect(new Set(listed.map((s) => s.id))).toEqual(new Set(publicIds));
    // Tags of public spaces are readable to members: the catalog judges that through its copy of
    // identity's space facts (fed by events, so it may lag a moment behind).
    const made = await ok(
      api.req("POST", "/v2/tags", {
        key: orgAdminKey,
        body: { space_id: publicIds[PUBLIC - 2], name: "for members" },
      }),
      201,
    );
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) {
      seen = (await all("/v2/tags", memberKey, "tags")).some((t) => t.id === made.id);
      if (!seen) await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toBe(true);
    const denied = await api.req("POST", "/v2/tags", {
      key: memberKey,
      body: { space_id: publicIds[PUBLIC - 1], name: "not a member's" },
    });
    expect(denied.status).toBe(403);
  });

  it("a key bound to 100 spaces acts in exactly those and reads their tags", async () => {
    const inPrivate = await ok(
      api.req("POST", "/v2/tags", {
        key: boundKey,
        body: { space_id: privateIds[0], name: "bound" },
      }),
      201,
    );
    const outside = await api.req("POST", "/v2/tags", {
      key: boundKey,
      body: { space_id: publicIds[PUBLIC - 1], name: "unbound" },
    });
    expect(outside.status).toBe(403);
    expect((await api.req("GET", `/v2/spaces/${privateIds[1]}`, { key: boundKey })).status).toBe(
      404,
    );
    // Spaces: the bound private one and every public one (visible to anyone in the account).
    const listed = await all(`/v2/spaces?org_id=${orgId}`, boundKey, "spaces");
    expect(listed).toHaveLength(PUBLIC + 1);
    // Tags: only where the key may read them, across its 100 spaces.
    const tags = await all("/v2/tags", boundKey, "tags");
    expect(tags.map((t) => t.id)).toContain(inPrivate.id);
    const readable = new Set([...publicIds.slice(0, BOUND - 1), privateIds[0]!]);
    for (const t of tags) expect(readable.has(t.space_id as string)).toBe(true);
  });
});
