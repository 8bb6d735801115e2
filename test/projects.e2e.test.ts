import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APIError,
  NotFoundError,
  createClient,
  createProject,
  deleteProject,
  getProject,
  listProjects,
  updateProject,
} from "@arizeai/ax-client";
import { expectProblem, startApi, type Api } from "./support.ts";

// Projects driven with the official @arizeai/ax-client, plus the contract edges over HTTP.

let api: Api;
let spaceId: string;
let spaceName: string;
let otherSpaceId: string;

const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });
const publicId = (type: string, uuid: string) => Buffer.from(`${type}:${uuid}`).toString("base64");
const create = (body: Record<string, unknown>) =>
  api.req("POST", "/v2/projects", { body: { space_id: spaceId, ...body } });

beforeAll(async () => {
  process.env.DISABLE_PRERELEASE_WARNING = "true";
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
  spaceName = spaces.body.spaces[0].name;
  const orgs = await api.req("GET", "/v2/organizations");
  const other = await api.req("POST", "/v2/spaces", {
    body: { organization_id: orgs.body.organizations[0].id, name: "projects other space" },
  });
  otherSpaceId = other.body.id;
});
afterAll(() => api?.stop());

describe("projects with @arizeai/ax-client", () => {
  it("creates (space by name), gets (by id and by name), updates and deletes a project", async () => {
    const client = ax();
    const created = await createProject({ client, name: "chatbot", space: spaceName });
    expect(created).toEqual({
      id: expect.any(String),
      name: "chatbot",
      spaceId,
      createdAt: expect.any(Date),
      // Every Argus project is an APPLICATION project (README); ax-client passes it through.
      project_type: "APPLICATION",
    });
    expect(Buffer.from(created.id, "base64").toString()).toMatch(/^Project:[0-9a-f-]{36}$/);
    expect(await getProject({ client, project: created.id })).toEqual(created);
    expect(await getProject({ client, project: "chatbot", space: spaceId })).toEqual(created);

    const renamed = await updateProject({ client, project: created.id, name: "chatbot v2" });
    expect(renamed).toEqual({ ...created, name: "chatbot v2" });
    expect((await getProject({ client, project: created.id })).name).toBe("chatbot v2");

    await deleteProject({ client, project: created.id });
    await expect(getProject({ client, project: created.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteProject({ client, project: created.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it("a duplicate name in the space is a 409 APIError; another space may reuse it", async () => {
    const client = ax();
    await createProject({ client, name: "dup", space: spaceId });
    const err = await createProject({ client, name: "dup", space: spaceId }).catch((e) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).statusCode).toBe(409);
    expect((await createProject({ client, name: "dup", space: otherSpaceId })).spaceId).toBe(
      otherSpaceId,
    );
  });

  it("lists with space (id or name) and name filters, paging with the cursor", async () => {
    const client = ax();
    for (const n of ["list-one", "list-two", "LIST-three"])
      await createProject({ client, name: n, space: spaceId });
    await createProject({ client, name: "list-elsewhere", space: otherSpaceId });

    const page1 = await listProjects({ client, space: spaceId, name: "list-", limit: 2 });
    expect(page1.data.map((p) => p.name)).toEqual(["LIST-three", "list-two"]);
    expect(page1.pagination.hasMore).toBe(true);
    const page2 = await listProjects({
      client,
      space: spaceId,
      name: "list-",
      limit: 2,
      cursor: page1.pagination.nextCursor,
    });
    expect(page2.data.map((p) => p.name)).toEqual(["list-one"]);
    expect(page2.pagination).toEqual({ hasMore: false, nextCursor: undefined });

    const byName = await listProjects({ client, space: "PROJECTS OTHER", name: "list" });
    expect(byName.data.map((p) => p.name)).toEqual(["list-elsewhere"]);
    const all = await listProjects({ client, name: "LIST-" });
    expect(all.data).toHaveLength(4);
  });
});

describe("project contract edges over HTTP", () => {
  it("accepts a 255-character name, rejects 256, empty and whitespace-only with 400", async () => {
    expect((await create({ name: "a".repeat(255) })).status).toBe(201);
    for (const name of ["b".repeat(256), "", "   "])
      expectProblem(await create({ name }), 400, "invalid-request");
  });

  it("rejects system and unknown fields with 400", async () => {
    for (const extra of [
      { id: publicId("Project", randomUUID()) },
      { created_at: "2026-01-01T00:00:00Z" },
      { description: "no such field" },
    ])
      expectProblem(await create({ name: `x-${randomUUID()}`, ...extra }), 400, "invalid-request");
    const p = (await create({ name: "patch-me" })).body;
    for (const body of [{}, { name: "ok", space_id: spaceId }, { name: "  " }])
      expectProblem(
        await api.req("PATCH", `/v2/projects/${p.id}`, { body }),
        400,
        "invalid-request",
      );
  });

  it("an unknown space is 404; an unknown or foreign-typed project id is 404", async () => {
    expectProblem(
      await create({ name: "nowhere", space_id: publicId("Space", randomUUID()) }),
      404,
      "resource-not-found",
    );
    for (const id of [publicId("Project", randomUUID()), spaceId])
      expectProblem(await api.req("GET", `/v2/projects/${id}`), 404, "resource-not-found");
  });

  it("renaming onto a taken name is 409", async () => {
    await create({ name: "taken" });
    const p = (await create({ name: "free" })).body;
    expectProblem(
      await api.req("PATCH", `/v2/projects/${p.id}`, { body: { name: "taken" } }),
      409,
      "resource-conflict",
    );
  });

  it("a malformed space_id filter is 400; a space_id of another type lists nothing", async () => {
    expectProblem(await api.req("GET", "/v2/projects?space_id=%25%25"), 400, "invalid-request");
    const res = await api.req("GET", `/v2/projects?space_id=${publicId("Project", randomUUID())}`);
    expect(res.body).toEqual({ projects: [], pagination: { has_more: false } });
  });
});
