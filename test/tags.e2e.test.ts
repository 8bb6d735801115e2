import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSpaceUser, identityDb, newUser } from "./identity-fixtures.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

// Tags exactly per the spec (Tag, Tag list response, TagColor; endpoints 1, 2 and 10), over
// plain HTTP. Datasets and experiments belong to the dataset service; the catalog asks it (as the
// caller) where one is before tagging it.

const COLORS =
  "GRAY INDIGO BLUE CYAN TEAL PINE GREEN LIME OLIVE LEMON YELLOW ORANGE RED CORAL PINK PLUM PURPLE BROWN AUBURN".split(
    " ",
  );

let api: Api;
let spaceId: string;
let otherSpaceId: string;
let projectId: string;
let datasetId: string;
let experimentId: string;

const publicId = (type: string, uuid: string) => Buffer.from(`${type}:${uuid}`).toString("base64");

const createTag = (body: Record<string, unknown>) =>
  api.req("POST", "/v2/tags", { body: { space_id: spaceId, ...body } });
async function newTag(name: string, extra: Record<string, unknown> = {}): Promise<Json> {
  const res = await createTag({ name, ...extra });
  expect(res.status).toBe(201);
  return res.body;
}
const attach = (path: string, body: unknown) => api.req("POST", `${path}/tags`, { body });
const detach = (path: string, body: unknown) => api.req("DELETE", `${path}/tags`, { body });
const tagsOf = async (path: string): Promise<Json> => {
  const res = await api.req("GET", `${path}/tags`);
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
  const orgs = await api.req("GET", "/v2/organizations");
  const other = await api.req("POST", "/v2/spaces", {
    body: { organization_id: orgs.body.organizations[0].id, name: "tags other space" },
  });
  otherSpaceId = other.body.id;
  const p = await api.req("POST", "/v2/projects", { body: { name: "tagged", space_id: spaceId } });
  projectId = p.body.id;
  const ds = await api.req("POST", "/v2/datasets", {
    body: { name: "tagged dataset", space_id: spaceId, examples: [{ q: "?" }] },
  });
  expect(ds.status, JSON.stringify(ds.body)).toBe(201);
  datasetId = ds.body.id;
  const ex = await api.req("POST", "/v2/experiments", {
    body: { name: "tagged experiment", space_id: spaceId, experiment_runs: [{ output: "o" }] },
  });
  expect(ex.status, JSON.stringify(ex.body)).toBe(201);
  experimentId = ex.body.id;
});
afterAll(async () => {
  await api?.stop();
});

describe("POST /v2/tags (spec endpoint 10)", () => {
  it("creates a Tag: description and color default to null, updated_at equals created_at", async () => {
    const res = await createTag({ name: "production" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "production",
      description: null,
      color: null,
      space_id: spaceId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: res.body.created_at,
    });
    expect(Buffer.from(res.body.id, "base64").toString()).toMatch(/^Tag:[0-9a-f-]{36}$/);
  });

  it("accepts a 100-character name and rejects 101", async () => {
    expect((await createTag({ name: "n".repeat(100) })).status).toBe(201);
    expectProblem(await createTag({ name: "m".repeat(101) }), 400, "invalid-request");
  });

  it("rejects a missing, empty or whitespace-only name with 400", async () => {
    expectProblem(await createTag({}), 400, "invalid-request");
    for (const name of ["", " ", "   \t "])
      expectProblem(await createTag({ name }), 400, "invalid-request");
  });

  it("accepts each of the 19 colors and rejects an invalid one", async () => {
    for (const color of COLORS) {
      const res = await createTag({ name: `color ${color}`, color });
      expect(res.status).toBe(201);
      expect(res.body.color).toBe(color);
    }
    expectProblem(await createTag({ name: "bad color", color: "MAGENTA" }), 400, "invalid-request");
    expectProblem(await createTag({ name: "lower color", color: "red" }), 400, "invalid-request");
  });

  it("keeps a description", async () => {
    const res = await createTag({ name: "described", description: "why", color: "TEAL" });
    expect(res.body).toMatchObject({ description: "why", color: "TEAL" });
  });

  it("a name differing only in case (or surrounding spaces) is 409 with the spec's detail", async () => {
    await newTag("Staging");
    for (const name of ["staging", "STAGING", "  Staging "]) {
      const res = await createTag({ name });
      expectProblem(res, 409, "resource-conflict");
      expect(res.body.detail).toBe("A tag with this name already exists in the space");
    }
  });

  it("the same name in another space is allowed", async () => {
    expect((await createTag({ name: "production", space_id: otherSpaceId })).status).toBe(201);
  });

  it("rejects system fields and unrecognized fields with 400", async () => {
    for (const extra of [
      { id: publicId("Tag", randomUUID()) },
      { created_at: "2026-01-01T00:00:00Z" },
      { updated_at: "2026-01-01T00:00:00Z" },
      { colour: "RED" },
    ])
      expectProblem(
        await createTag({ name: `sys ${randomUUID()}`, ...extra }),
        400,
        "invalid-request",
      );
  });

  it("an unknown space is 404; a malformed space_id 400", async () => {
    expectProblem(
      await createTag({ name: "nowhere", space_id: publicId("Space", randomUUID()) }),
      404,
      "resource-not-found",
    );
    expectProblem(await createTag({ name: "nowhere", space_id: "%%%" }), 400, "invalid-request");
  });

  it("20 concurrent creates of one name in differing case: exactly one 201 and nineteen 409", async () => {
    const names = Array.from({ length: 20 }, (_, i) =>
      [...`concurrent-${"x"}`].map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c)).join(""),
    );
    const results = await Promise.all(names.map((name) => createTag({ name })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(19);
    for (const r of conflicts) expectProblem(r, 409, "resource-conflict");
  });
});

describe("GET /v2/tags and GET /v2/tags/{tag_id}", () => {
  it("gets a tag; an unknown or malformed id is 404", async () => {
    const t = await newTag("gettable");
    const res = await api.req("GET", `/v2/tags/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(t);
    expectProblem(
      await api.req("GET", `/v2/tags/${publicId("Tag", randomUUID())}`),
      404,
      "resource-not-found",
    );
    expectProblem(await api.req("GET", `/v2/tags/${projectId}`), 404, "resource-not-found");
  });

  it("lists with space_id, space_name and name filters and cursor paging", async () => {
    for (const n of ["list-a", "list-b", "LIST-c"]) await newTag(n);
    const page1 = await api.req("GET", `/v2/tags?space_id=${spaceId}&name=list-&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.tags.map((t: Json) => t.name)).toEqual(["LIST-c", "list-b"]);
    expect(page1.body.pagination.has_more).toBe(true);
    const page2 = await api.req(
      "GET",
      `/v2/tags?space_id=${spaceId}&name=list-&limit=2&cursor=${encodeURIComponent(page1.body.pagination.next_cursor)}`,
    );
    expect(page2.body.tags.map((t: Json) => t.name)).toEqual(["list-a"]);
    expect(page2.body.pagination).toEqual({ has_more: false });
    const other = await api.req("GET", "/v2/tags?space_name=TAGS%20OTHER&name=production");
    expect(other.body.tags.map((t: Json) => t.space_id)).toEqual([otherSpaceId]);
  });
});

describe("PATCH /v2/tags/{tag_id}", () => {
  it("needs at least one field (400)", async () => {
    const t = await newTag("patch-empty");
    const res = await api.req("PATCH", `/v2/tags/${t.id}`, { body: {} });
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toBe("At least one field (name, description, color) must be provided");
  });

  it("updates fields, null clears description and color, updated_at advances", async () => {
    const t = await newTag("patchable", { description: "d", color: "RED" });
    const res = await api.req("PATCH", `/v2/tags/${t.id}`, {
      body: { description: null, color: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "patchable", description: null, color: null });
    expect(res.body.created_at).toBe(t.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(t.updated_at));
    const again = await api.req("PATCH", `/v2/tags/${t.id}`, { body: { color: "PLUM" } });
    expect(again.body).toMatchObject({ color: "PLUM", description: null });
    expect(Date.parse(again.body.updated_at)).toBeGreaterThan(Date.parse(res.body.updated_at));
  });

  it("applies the create rules: 101 characters, whitespace, bad color, unknown field are 400; collision 409", async () => {
    const t = await newTag("patch-rules");
    await newTag("patch-taken");
    for (const body of [
      { name: "x".repeat(101) },
      { name: "  " },
      { color: "NAVY" },
      { foo: 1 },
      { id: t.id },
    ])
      expectProblem(await api.req("PATCH", `/v2/tags/${t.id}`, { body }), 400, "invalid-request");
    expectProblem(
      await api.req("PATCH", `/v2/tags/${t.id}`, { body: { name: "PATCH-TAKEN" } }),
      409,
      "resource-conflict",
    );
    expect(
      (await api.req("PATCH", `/v2/tags/${t.id}`, { body: { name: "x".repeat(100) } })).status,
    ).toBe(200);
  });

  it("an unknown tag is 404", async () => {
    expectProblem(
      await api.req("PATCH", `/v2/tags/${publicId("Tag", randomUUID())}`, { body: { name: "x" } }),
      404,
      "resource-not-found",
    );
  });
});

describe("tags on resources (spec endpoints 1 and 2, and their siblings)", () => {
  const paths = () => [
    `/v2/projects/${projectId}`,
    `/v2/datasets/${datasetId}`,
    `/v2/experiments/${experimentId}`,
  ];

  it("a resource without tags lists an empty Tag list response, exactly", async () => {
    for (const path of paths())
      expect(await tagsOf(path)).toEqual({ tags: [], pagination: { has_more: false } });
  });

  it("0 tag_ids is 422 saying at least one tag ID is required; 101 is 422", async () => {
    const res = await attach(paths()[0]!, { tag_ids: [] });
    expectProblem(res, 422, "validation-error");
    expect(res.body.detail).toMatch(/at least 1 tag ID/);
    const ids = Array.from({ length: 101 }, () => publicId("Tag", randomUUID()));
    expectProblem(await attach(paths()[0]!, { tag_ids: ids }), 422, "validation-error");
    expectProblem(await attach(paths()[0]!, {}), 422, "validation-error");
  });

  it("1 and 100 tag_ids attach with 200 and the complete list, most recently updated first", async () => {
    const p = await api.req("POST", "/v2/projects", {
      body: { name: "hundred", space_id: spaceId },
    });
    const path = `/v2/projects/${p.body.id}`;
    const one = await newTag("one-of-101");
    const res1 = await attach(path, { tag_ids: [one.id] });
    expect(res1.status).toBe(200);
    expect(res1.body).toEqual({ tags: [one], pagination: { has_more: false } });
    const hundred: Json[] = [];
    for (let i = 0; i < 100; i++) hundred.push(await newTag(`bulk-${i}`));
    const res100 = await attach(path, { tag_ids: hundred.map((t) => t.id) });
    expect(res100.status).toBe(200);
    expect(res100.body.tags).toHaveLength(101);
    expect(res100.body.tags[0].name).toBe("bulk-99");
    expect(res100.body.tags.at(-1).name).toBe("one-of-101");
  });

  it("re-attaching is idempotent", async () => {
    const t = await newTag("idempotent");
    const first = await attach(paths()[0]!, { tag_ids: [t.id] });
    const second = await attach(paths()[0]!, { tag_ids: [t.id, t.id] });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it("a tag from another space, or an unknown tag, is 422 and nothing is attached", async () => {
    const elsewhere = (await createTag({ name: "elsewhere", space_id: otherSpaceId })).body;
    const mine = await newTag("not-attached-on-422");
    const before = await tagsOf(paths()[1]!);
    for (const tag_ids of [
      [mine.id, elsewhere.id],
      [mine.id, publicId("Tag", randomUUID())],
      [projectId],
    ])
      expectProblem(await attach(paths()[1]!, { tag_ids }), 422, "validation-error");
    expect(await tagsOf(paths()[1]!)).toEqual(before);
  });

  it("an unknown property on attach is 422 (on create it is 400)", async () => {
    const t = await newTag("unknown-prop");
    expectProblem(
      await attach(paths()[0]!, { tag_ids: [t.id], extra: true }),
      422,
      "validation-error",
    );
    expectProblem(await createTag({ name: "unknown-prop-2", extra: true }), 400, "invalid-request");
  });

  it("an unknown resource is 404 on list, attach and detach", async () => {
    const t = await newTag("for-missing");
    for (const path of [
      `/v2/projects/${publicId("Project", randomUUID())}`,
      `/v2/datasets/${publicId("Dataset", randomUUID())}`,
      `/v2/experiments/${publicId("Experiment", randomUUID())}`,
      `/v2/prompts/${publicId("Prompt", randomUUID())}`,
      `/v2/evaluators/${publicId("Evaluator", randomUUID())}`,
      `/v2/annotation-queues/${publicId("AnnotationQueue", randomUUID())}`,
      `/v2/projects/${datasetId}`,
    ]) {
      expectProblem(await api.req("GET", `${path}/tags`), 404, "resource-not-found");
      expectProblem(await attach(path, { tag_ids: [t.id] }), 404, "resource-not-found");
      expectProblem(await detach(path, { tag_ids: [t.id] }), 404, "resource-not-found");
    }
  });

  it("detach reports what was detached and, in not_found, what was not attached", async () => {
    const a = await newTag("detach-a");
    const b = await newTag("detach-b");
    await attach(paths()[2]!, { tag_ids: [a.id] });
    const garbage = publicId("Project", randomUUID());
    const res = await detach(paths()[2]!, { tag_ids: [a.id, b.id, garbage] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      detached: [a.id],
      not_found: [b.id, garbage],
      completed: false,
      deleted: [a.id],
      not_deleted: [b.id, garbage],
    });
    expect((await tagsOf(paths()[2]!)).tags.map((t: Json) => t.id)).not.toContain(a.id);
    expectProblem(await detach(paths()[2]!, { tag_ids: [] }), 422, "validation-error");
    expectProblem(await detach(paths()[2]!, { tag_ids: [a.id], x: 1 }), 422, "validation-error");
  });

  it("rename, then list the tags of three different resources: the new name everywhere", async () => {
    const t = await newTag("before-rename");
    for (const path of paths()) expect((await attach(path, { tag_ids: [t.id] })).status).toBe(200);
    const renamed = await api.req("PATCH", `/v2/tags/${t.id}`, { body: { name: "after-rename" } });
    expect(renamed.status).toBe(200);
    for (const path of paths()) {
      const tags = (await tagsOf(path)).tags as Json[];
      expect(tags[0]).toEqual(renamed.body);
      expect(tags.map((x) => x.name)).not.toContain("before-rename");
    }
  });

  it("delete (204), then the tag is gone from every resource and from the tag endpoints", async () => {
    const t = await newTag("doomed");
    for (const path of paths()) await attach(path, { tag_ids: [t.id] });
    const res = await api.req("DELETE", `/v2/tags/${t.id}`);
    expect(res.status).toBe(204);
    for (const path of paths())
      expect(((await tagsOf(path)).tags as Json[]).map((x) => x.id)).not.toContain(t.id);
    expectProblem(await api.req("GET", `/v2/tags/${t.id}`), 404, "resource-not-found");
    expectProblem(await api.req("DELETE", `/v2/tags/${t.id}`), 404, "resource-not-found");
    expect((await createTag({ name: "doomed" })).status).toBe(201);
  });

  it("deleting a project detaches its tags", async () => {
    const p = await api.req("POST", "/v2/projects", {
      body: { name: "short-lived", space_id: spaceId },
    });
    const t = await newTag("on-short-lived");
    await attach(`/v2/projects/${p.body.id}`, { tag_ids: [t.id] });
    expect((await api.req("DELETE", `/v2/projects/${p.body.id}`)).status).toBe(204);
    expectProblem(
      await api.req("GET", `/v2/projects/${p.body.id}/tags`),
      404,
      "resource-not-found",
    );
  });
});

describe("tags on annotation configs: list and attach", () => {
  const newConfig = async (space: string, name: string) => {
    const res = await api.req("POST", "/v2/annotation-configs", {
      body: { space_id: space, name, annotation_config_type: "FREEFORM" },
    });
    expect(res.status).toBe(201);
    return `/v2/annotation-configs/${res.body.id}`;
  };

  it("lists none, attaches (idempotent, complete list), follows renames and deletes", async () => {
    const path = await newConfig(spaceId, "tagged config");
    expect(await tagsOf(path)).toEqual({ tags: [], pagination: { has_more: false } });
    const a = await newTag("config-a");
    const b = await newTag("config-b");
    const res = await attach(path, { tag_ids: [a.id, b.id, a.id] });
    expect(res.status).toBe(200);
    expect(res.body.tags.map((t: Json) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect((await attach(path, { tag_ids: [a.id] })).body.tags).toHaveLength(2);
    await api.req("PATCH", `/v2/tags/${a.id}`, { body: { name: "config-a renamed" } });
    expect((await tagsOf(path)).tags.map((t: Json) => t.name)).toContain("config-a renamed");
    expect((await api.req("DELETE", `/v2/tags/${b.id}`)).status).toBe(204);
    expect((await tagsOf(path)).tags.map((t: Json) => t.id)).toEqual([a.id]);
    // Deleting the config: its tags go with it, and it is 404.
    expect((await api.req("DELETE", path)).status).toBe(204);
    expectProblem(await api.req("GET", `${path}/tags`), 404, "resource-not-found");
    expectProblem(await attach(path, { tag_ids: [a.id] }), 404, "resource-not-found");
  });

  it("validation: empty or 101 tag_ids, unknown fields, a tag of another space or unknown are 422", async () => {
    const path = await newConfig(spaceId, "tagged config 422");
    const t = await newTag("config-422");
    expectProblem(await attach(path, { tag_ids: [] }), 422, "validation-error");
    const many = Array.from({ length: 101 }, () => t.id);
    expectProblem(await attach(path, { tag_ids: many }), 422, "validation-error");
    expectProblem(await attach(path, { tag_ids: [t.id], x: 1 }), 422, "validation-error");
    const elsewhere = await api.req("POST", "/v2/tags", {
      body: { space_id: otherSpaceId, name: "config-elsewhere" },
    });
    expectProblem(await attach(path, { tag_ids: [elsewhere.body.id] }), 422, "validation-error");
    expectProblem(
      await attach(path, { tag_ids: [publicId("Tag", randomUUID())] }),
      422,
      "validation-error",
    );
    expect((await tagsOf(path)).tags).toEqual([]);
  });

  it("401 without a key; 404 unknown or unseen; 403 attaching without ANNOTATION_CONFIG_UPDATE", async () => {
    const db = identityDb(api);
    try {
      const orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
      const space = await api.req("POST", "/v2/spaces", {
        body: { organization_id: orgId, name: "private tagged configs", is_private: true },
      });
      const path = await newConfig(space.body.id, "private tagged config");
      const tag = await api.req("POST", "/v2/tags", {
        body: { space_id: space.body.id, name: "private config tag" },
      });
      const body = { tag_ids: [tag.body.id] };
      expectProblem(
        await api.req("GET", `${path}/tags`, { key: null }),
        401,
        "authentication-required",
      );
      expectProblem(
        await api.req("POST", `${path}/tags`, { body, key: null }),
        401,
        "authentication-required",
      );
      const unknown = `/v2/annotation-configs/${publicId("AnnotationConfig", randomUUID())}`;
      expectProblem(await api.req("GET", `${unknown}/tags`), 404, "resource-not-found");
      expectProblem(await attach(unknown, body), 404, "resource-not-found");
      const outsider = await newUser(api, db, "MEMBER");
      const as = (key: string) => ({ key });
      expectProblem(
        await api.req("GET", `${path}/tags`, as(outsider.key)),
        404,
        "resource-not-found",
      );
      expectProblem(
        await api.req("POST", `${path}/tags`, { body, ...as(outsider.key) }),
        404,
        "resource-not-found",
      );
      const reader = await newUser(api, db, "MEMBER");
      await addSpaceUser(api, space.body.id, reader.id, "READ_ONLY", orgId);
      expect((await api.req("GET", `${path}/tags`, as(reader.key))).status).toBe(200);
      expectProblem(
        await api.req("POST", `${path}/tags`, { body, ...as(reader.key) }),
        403,
        "access-forbidden",
      );
      expect((await attach(path, body)).status).toBe(200);
      const listed = await api.req("GET", `${path}/tags`, as(reader.key));
      expect(listed.body.tags.map((t: Json) => t.id)).toEqual([tag.body.id]);
    } finally {
      await db.end();
    }
  });
});
