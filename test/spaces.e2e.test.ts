import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api } from "./support.ts";

let api: Api;
let orgId: string;

beforeAll(async () => {
  api = await startApi();
  const orgs = await api.req("GET", "/v2/organizations");
  orgId = orgs.body.organizations[0].id;
});
afterAll(() => api?.stop());

const createSpace = (body: Record<string, unknown>) =>
  api.req("POST", "/v2/spaces", { body: { organization_id: orgId, ...body } });

describe("POST /v2/spaces (spec endpoint 5)", () => {
  it("creates a space with defaults: description empty, public", async () => {
    const res = await createSpace({ name: "research" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      organization_id: orgId,
      name: "research",
      description: "",
      is_private: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(Buffer.from(res.body.id, "base64").toString()).toMatch(/^Space:[0-9a-f-]{36}$/);
    const got = await api.req("GET", `/v2/spaces/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("keeps description and is_private when given", async () => {
    const res = await createSpace({ name: "private one", description: "d", is_private: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: "d", is_private: true });
  });

  it("accepts a 255-character name and rejects 256", async () => {
    expect((await createSpace({ name: "a".repeat(255) })).status).toBe(201);
    expectProblem(await createSpace({ name: "b".repeat(256) }), 400, "invalid-request");
  });

  it("accepts a 1000-character description and rejects 1001", async () => {
    expect((await createSpace({ name: "desc-1000", description: "d".repeat(1000) })).status).toBe(
      201,
    );
    expectProblem(
      await createSpace({ name: "desc-1001", description: "d".repeat(1001) }),
      400,
      "invalid-request",
    );
  });

  it("rejects an empty or whitespace-only name", async () => {
    expectProblem(await createSpace({ name: "" }), 400, "invalid-request");
    expectProblem(await createSpace({ name: "   " }), 400, "invalid-request");
  });

  it("a duplicate name in the organization is 409, and nothing is written", async () => {
    expect((await createSpace({ name: "dup" })).status).toBe(201);
    expectProblem(await createSpace({ name: "dup" }), 409, "resource-conflict");
    const list = await api.req("GET", `/v2/spaces?org_id=${orgId}&name=dup`);
    expect(list.body.spaces.filter((s: { name: string }) => s.name === "dup")).toHaveLength(1);
  });

  it("the same name in another organization is allowed", async () => {
    const other = await api.req("POST", "/v2/organizations", { body: { name: "second org" } });
    expect(other.status).toBe(201);
    expect((await createSpace({ name: "shared-name" })).status).toBe(201);
    const res = await api.req("POST", "/v2/spaces", {
      body: { organization_id: other.body.id, name: "shared-name" },
    });
    expect(res.status).toBe(201);
  });

  it("rejects the system-managed fields id and created_at, and unknown fields", async () => {
    expectProblem(await createSpace({ name: "x1", id: "U3BhY2U6eA==" }), 400, "invalid-request");
    expectProblem(
      await createSpace({ name: "x2", created_at: "2026-01-01T00:00:00Z" }),
      400,
      "invalid-request",
    );
    expectProblem(await createSpace({ name: "x3", colour: "red" }), 400, "invalid-request");
  });

  it("requires name and organization_id", async () => {
    expectProblem(
      await api.req("POST", "/v2/spaces", { body: { name: "no-org" } }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/spaces", { body: { organization_id: orgId } }),
      400,
      "invalid-request",
    );
  });

  it("an unknown organization is 404; an id of another type is 400", async () => {
    const unknownOrg = Buffer.from("Organization:01920000-0000-7000-8000-000000000000").toString(
      "base64",
    );
    expectProblem(
      await api.req("POST", "/v2/spaces", { body: { organization_id: unknownOrg, name: "n" } }),
      404,
      "resource-not-found",
    );
    const spaceAsOrg = Buffer.from("Space:01920000-0000-7000-8000-000000000000").toString("base64");
    expectProblem(
      await api.req("POST", "/v2/spaces", { body: { organization_id: spaceAsOrg, name: "n" } }),
      400,
      "invalid-request",
    );
  });
});

describe("GET /v2/spaces/{space_id}", () => {
  it("an unknown id, an id of another type, and garbage are 404", async () => {
    const unknown = Buffer.from("Space:01920000-0000-7000-8000-000000000000").toString("base64");
    expectProblem(await api.req("GET", `/v2/spaces/${unknown}`), 404, "resource-not-found");
    expectProblem(await api.req("GET", `/v2/spaces/${orgId}`), 404, "resource-not-found");
    expectProblem(await api.req("GET", "/v2/spaces/not-an-id"), 404, "resource-not-found");
  });
});

describe("GET /v2/spaces", () => {
  it("pages 120 spaces with limit=50 as 50, 50, 20, ending without next_cursor", async () => {
    const org = await api.req("POST", "/v2/organizations", { body: { name: "paging org" } });
    const created = new Set<string>();
    for (let i = 0; i < 120; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          api.req("POST", "/v2/spaces", {
            body: { organization_id: org.body.id, name: `p-${i + j}` },
          }),
        ),
      );
      for (const r of batch) created.add(r.body.id);
    }
    const sizes: number[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const page = await api.req(
        "GET",
        `/v2/spaces?org_id=${org.body.id}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.status).toBe(200);
      sizes.push(page.body.spaces.length);
      for (const s of page.body.spaces) seen.add(s.id);
      if (!page.body.pagination.has_more) {
        expect(page.body.pagination).toEqual({ has_more: false });
        break;
      }
      cursor = page.body.pagination.next_cursor;
      expect(typeof cursor).toBe("string");
    }
    expect(sizes).toEqual([50, 50, 20]);
    expect(seen).toEqual(created);
  });

  it("defaults to 50 items and rejects limit 0 and 101 but accepts 1 and 100", async () => {
    const org = await api.req("GET", "/v2/organizations?name=paging");
    const id = org.body.organizations[0].id;
    expect((await api.req("GET", `/v2/spaces?org_id=${id}`)).body.spaces).toHaveLength(50);
    expect((await api.req("GET", `/v2/spaces?org_id=${id}&limit=1`)).body.spaces).toHaveLength(1);
    expect((await api.req("GET", `/v2/spaces?org_id=${id}&limit=100`)).body.spaces).toHaveLength(
      100,
    );
    expectProblem(await api.req("GET", "/v2/spaces?limit=0"), 400, "invalid-request");
    expectProblem(await api.req("GET", "/v2/spaces?limit=101"), 400, "invalid-request");
  });

  it("a tampered cursor, or one made for another query, is 400", async () => {
    const first = await api.req("GET", "/v2/spaces?limit=1");
    const cursor: string = first.body.pagination.next_cursor;
    const flipped = cursor.slice(0, -2) + (cursor.at(-2) === "A" ? "B" : "A") + cursor.at(-1);
    expectProblem(
      await api.req("GET", `/v2/spaces?limit=1&cursor=${encodeURIComponent(flipped)}`),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("GET", `/v2/spaces?limit=1&name=p-&cursor=${encodeURIComponent(cursor)}`),
      400,
      "invalid-request",
    );
  });

  it("filters by case-insensitive substring of the name", async () => {
    await createSpace({ name: "Needle In Haystack" });
    const res = await api.req("GET", "/v2/spaces?name=nEEDLE");
    expect(res.body.spaces.map((s: { name: string }) => s.name)).toEqual(["Needle In Haystack"]);
  });
});

describe("headless initialization", () => {
  it("is idempotent across restarts: no second organization, space or key", async () => {
    const before = await api.req("GET", "/v2/organizations?limit=100");
    await api.stack.restart("identity");
    const after = await api.req("GET", "/v2/organizations?limit=100");
    expect(after.status).toBe(200);
    expect(after.body.organizations).toEqual(before.body.organizations);
    const spaces = await api.req("GET", `/v2/spaces?org_id=${orgId}&name=Default Space`);
    expect(spaces.body.spaces).toHaveLength(1);
  });
});
