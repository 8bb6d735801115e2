import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  createPrompt,
  createPromptVersion,
  deletePrompt,
  deletePromptVersionLabel,
  getPrompt,
  getPromptVersion,
  getPromptVersionByLabel,
  listPromptVersions,
  listPrompts,
  setPromptVersionLabels,
  updatePrompt,
} from "@arizeai/ax-client";
import { expectProblem, startApi, type Api } from "./support.ts";

let api: Api;
let spaceId: string;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });

const version = {
  commit_message: "initial",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [{ role: "USER", content: "Hello {name}" }],
};

beforeAll(async () => {
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
});
afterAll(() => api?.stop());

describe("prompts through @arizeai/ax-client", () => {
  it("creates, versions, labels, resolves and deletes a prompt", async () => {
    const client = ax();
    const created = await createPrompt({
      client,
      space: spaceId,
      name: "support-bot",
      description: "helps",
      version: {
        commitMessage: "initial",
        inputVariableFormat: "F_STRING",
        provider: "OPEN_AI",
        model: "gpt-4o",
        messages: [
          { role: "SYSTEM", content: "You are helpful." },
          { role: "USER", content: "Hello, {name}!" },
        ],
        invocationParams: { temperature: 0.5, max_tokens: 100 },
      },
    });
    expect(created).toMatchObject({ name: "support-bot", description: "helps", spaceId });
    expect(created.version).toMatchObject({
      commitMessage: "initial",
      provider: "OPEN_AI",
      model: "gpt-4o",
      inputVariableFormat: "F_STRING",
      invocationParams: { temperature: 0.5, max_tokens: 100 },
    });
    expect(created.version.commitHash).toMatch(/^[0-9a-f]{40}$/);

    // By name within the space, as the client resolves it.
    const byName = await getPrompt({ client, prompt: "support-bot", space: spaceId });
    expect(byName.id).toBe(created.id);

    const v2 = await createPromptVersion({
      client,
      prompt: created.id,
      commitMessage: "second",
      inputVariableFormat: "MUSTACHE",
      provider: "ANTHROPIC",
      messages: [{ role: "USER", content: "Hi {{name}}" }],
    });
    expect(v2).toMatchObject({ commitMessage: "second", provider: "ANTHROPIC" });
    expect((await getPrompt({ client, prompt: created.id })).version.id).toBe(v2.id);

    const labelled = await setPromptVersionLabels({
      client,
      versionId: created.version.id,
      labels: ["production"],
    });
    expect(labelled.labels).toEqual(["production"]);
    const prod = await getPromptVersionByLabel({
      client,
      prompt: created.id,
      labelName: "production",
    });
    expect(prod.id).toBe(created.version.id);
    expect((await getPrompt({ client, prompt: created.id, label: "production" })).version.id).toBe(
      created.version.id,
    );
    expect((await getPromptVersion({ client, versionId: v2.id })).labels).toEqual([]);

    const versions = await listPromptVersions({ client, prompt: created.id, limit: 1 });
    expect(versions.data.map((v) => v.id)).toEqual([v2.id]);
    expect(versions.pagination.hasMore).toBe(true);

    const updated = await updatePrompt({ client, prompt: created.id, description: "better" });
    expect(updated.description).toBe("better");

    const listed = await listPrompts({ client, name: "SUPPORT" });
    expect(listed.data.map((p) => p.id)).toContain(created.id);

    await deletePromptVersionLabel({
      client,
      versionId: created.version.id,
      labelName: "production",
    });
    expectProblem(
      await api.req("GET", `/v2/prompts/${created.id}/labels/production`),
      404,
      "resource-not-found",
    );
    await deletePrompt({ client, prompt: created.id });
    expectProblem(await api.req("GET", `/v2/prompts/${created.id}`), 404, "resource-not-found");
  });
});

describe("prompts over plain HTTP: edges", () => {
  it("duplicate names in a space are 409; system fields and missing messages are 400", async () => {
    const body = { space_id: spaceId, name: "dup-prompt", version };
    expect((await api.req("POST", "/v2/prompts", { body })).status).toBe(201);
    expectProblem(await api.req("POST", "/v2/prompts", { body }), 409, "resource-conflict");
    expectProblem(
      await api.req("POST", "/v2/prompts", {
        body: { ...body, name: "sys", version: { ...version, commit_hash: "x" } },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/prompts", {
        body: { ...body, name: "nomsg", version: { ...version, messages: [] } },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/prompts", { body: { ...body, name: "x".repeat(256) } }),
      400,
      "invalid-request",
    );
  });

  it("version_id with label is 400; unknown ids are 404; limit edges", async () => {
    const created = (
      await api.req("POST", "/v2/prompts", {
        body: { space_id: spaceId, name: "edges", version },
      })
    ).body;
    expectProblem(
      await api.req(
        "GET",
        `/v2/prompts/${created.id}?version_id=${created.version.id}&label=production`,
      ),
      400,
      "invalid-request",
    );
    expectProblem(await api.req("GET", "/v2/prompts/Z2FyYmFnZQ=="), 404, "resource-not-found");
    expectProblem(
      await api.req("GET", `/v2/prompt-versions/${created.id}`),
      404,
      "resource-not-found",
    );
    // Labels on a version that does not exist: the prompt's id is no version's.
    for (const method of ["PUT", "DELETE"] as const)
      expectProblem(
        await api.req(
          method,
          `/v2/prompt-versions/${created.id}/labels${method === "DELETE" ? "/production" : ""}`,
          method === "PUT" ? { body: { labels: ["production"] } } : {},
        ),
        404,
        "resource-not-found",
      );
    expectProblem(await api.req("GET", "/v2/prompts?limit=0"), 400, "invalid-request");
    expectProblem(await api.req("GET", "/v2/prompts?limit=101"), 400, "invalid-request");
    expect((await api.req("GET", "/v2/prompts?limit=1")).body.prompts).toHaveLength(1);
    expect((await api.req("GET", "/v2/prompts?limit=100")).status).toBe(200);
    const labels = Array.from({ length: 101 }, (_, i) => `l${i}`);
    expectProblem(
      await api.req("PUT", `/v2/prompt-versions/${created.version.id}/labels`, {
        body: { labels },
      }),
      400,
      "invalid-request",
    );
    const ok = await api.req("PUT", `/v2/prompt-versions/${created.version.id}/labels`, {
      body: { labels: labels.slice(0, 100) },
    });
    expect(ok.body.labels).toHaveLength(100);
  });

  it("a prompt of 180 versions (past its stream's snapshots): labels move, delete and resolve; the prompt deletes", async () => {
    const created = await api.ok("POST", "/v2/prompts", {
      space_id: spaceId,
      name: "long-history",
      version,
    });
    const versions = `/v2/prompts/${created.id}/versions`;
    const ids: string[] = [created.version.id];
    for (let i = 1; i < 120; i++) ids.push((await api.ok("POST", versions, version)).id);
    const label = (versionId: string, labels: string[]) =>
      api.req("PUT", `/v2/prompt-versions/${versionId}/labels`, { body: { labels } });
    const labelled = async (name: string) =>
      (await api.ok("GET", `/v2/prompts/${created.id}/labels/${name}`)).id;
    // Set on an early version (folded into the snapshots since), then moved to a late one.
    expect((await label(ids[2]!, ["production", "staging"])).status).toBe(200);
    for (let i = 0; i < 60; i++) await api.ok("POST", versions, version);
    expect(await labelled("production")).toBe(ids[2]);
    expect((await label(ids[110]!, ["production"])).status).toBe(200);
    expect(await labelled("production")).toBe(ids[110]);
    expect(await labelled("staging")).toBe(ids[2]);
    expectProblem(
      await api.req("DELETE", `/v2/prompt-versions/${ids[2]}/labels/production`),
      404,
      "resource-not-found",
    );
    expect((await api.req("DELETE", `/v2/prompt-versions/${ids[2]}/labels/staging`)).status).toBe(
      204,
    );
    expectProblem(
      await api.req("GET", `/v2/prompts/${created.id}/labels/staging`),
      404,
      "resource-not-found",
    );
    expect((await api.req("DELETE", `/v2/prompts/${created.id}`)).status).toBe(204);
    expectProblem(await label(ids[110]!, ["x"]), 404, "resource-not-found");
  });

  it("tags attach to prompts and to evaluators (spec endpoint 1)", async () => {
    const tag = (await api.req("POST", "/v2/tags", { body: { space_id: spaceId, name: "tagged" } }))
      .body;
    const prompt = (
      await api.req("POST", "/v2/prompts", { body: { space_id: spaceId, name: "tagged", version } })
    ).body;
    const onPrompt = await api.req("POST", `/v2/prompts/${prompt.id}/tags`, {
      body: { tag_ids: [tag.id] },
    });
    expect(onPrompt.status).toBe(200);
    expect(onPrompt.body.tags).toHaveLength(1);
    const evaluator = (
      await api.req("POST", "/v2/evaluators", {
        body: {
          space_id: spaceId,
          name: "tagged",
          type: "CODE",
          version: {
            commit_message: "c",
            code_config: { type: "CUSTOM", name: "e", code: "class E: ...", variables: ["x"] },
          },
        },
      })
    ).body;
    const onEvaluator = await api.req("POST", `/v2/evaluators/${evaluator.id}/tags`, {
      body: { tag_ids: [tag.id] },
    });
    expect(onEvaluator.status).toBe(200);
    expect(onEvaluator.body.tags.map((t: { id: string }) => t.id)).toEqual([tag.id]);
  });

  it("without a credential every prompt route is 401", async () => {
    expectProblem(
      await api.req("GET", "/v2/prompts", { key: null }),
      401,
      "authentication-required",
    );
  });
});
