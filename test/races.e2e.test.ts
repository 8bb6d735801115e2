import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeId } from "@argus/platform";
import { startApi, type Api, type Json } from "./support.ts";

// Racing writes to one resource through the API (issue 7): whatever the interleaving, every
// answer is 2xx, 404 or 409, and the stored history is one a decider accepts: created first,
// at most one delete, nothing after it.

let api: Api;
let db: pg.Pool;
let spaceId: string;
let orgId: string;
beforeAll(async () => {
  api = await startApi();
  db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL, max: 2 });
  spaceId = ((await api.req("GET", "/v2/spaces")).body.spaces[0] as Json).id;
  orgId = ((await api.req("GET", "/v2/organizations")).body.organizations[0] as Json).id;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

async function history(schema: string, stream: string): Promise<string[]> {
  const { rows } = await db.query<{ event_type: string }>(
    `select event_type from ${schema}.events where stream_id = $1 order by stream_version`,
    [stream],
  );
  return rows.map((r) => r.event_type);
}

/** 10 PATCHes and 10 DELETEs at once; the statuses they got. */
async function race(path: string, patch: (i: number) => Json): Promise<number[]> {
  const calls = Array.from({ length: 20 }, (_, i) =>
    i % 2 === 0 ? api.req("PATCH", path, { body: patch(i) }) : api.req("DELETE", path),
  );
  return (await Promise.all(calls)).map((r) => r.status);
}

function expectValid(types: string[], statuses: number[], deleted: string): void {
  for (const s of statuses) expect([200, 204, 404, 409], `status ${s}`).toContain(s);
  expect(types[0]).toMatch(/Created$/);
  expect(types.filter((t) => t === deleted)).toHaveLength(1);
  expect(types.at(-1)).toBe(deleted);
  // Exactly one DELETE won, and every PATCH that succeeded is in the history before it.
  expect(statuses.filter((s) => s === 204)).toHaveLength(1);
  const updates = types.filter((t) => t.endsWith("Updated")).length;
  expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(updates);
}

describe("20 concurrent updates and deletes of one resource", () => {
  it("a space: never an update after the delete, never two deletes, never a 500", async () => {
    for (let round = 0; round < 3; round++) {
      const created = await api.req("POST", "/v2/spaces", {
        body: { name: `race-${round}-${Date.now()}`, organization_id: orgId },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const statuses = await race(`/v2/spaces/${created.body.id}`, (i) => ({
        description: `d${round}-${i}`,
      }));
      const uuid = decodeId("Space", created.body.id as string)!;
      expectValid(await history("identity", `space-${uuid}`), statuses, "SpaceDeleted");
    }
  });

  it("a tag", async () => {
    for (let round = 0; round < 3; round++) {
      const created = await api.req("POST", "/v2/tags", {
        body: { name: `race-${round}-${Date.now()}`, space_id: spaceId },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const statuses = await race(`/v2/tags/${created.body.id}`, (i) => ({
        description: `d${round}-${i}`,
      }));
      const uuid = decodeId("Tag", created.body.id as string)!;
      expectValid(await history("catalog", `tag-${uuid}`), statuses, "TagDeleted");
    }
  });

  it("a prompt", async () => {
    for (let round = 0; round < 3; round++) {
      const created = await api.req("POST", "/v2/prompts", {
        body: {
          space_id: spaceId,
          name: `race-${round}-${Date.now()}`,
          version: {
            commit_message: "v1",
            provider: "OPEN_AI",
            model: "gpt-4o",
            messages: [{ role: "USER", content: "Hi {name}" }],
          },
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const statuses = await race(`/v2/prompts/${created.body.id}`, (i) => ({
        description: `d${round}-${i}`,
      }));
      const uuid = decodeId("Prompt", created.body.id as string)!;
      const types = await history("catalog", `prompt-${uuid}`);
      expectValid(
        types.filter((t) => !t.startsWith("PromptVersion") && !t.startsWith("PromptLabel")),
        statuses,
        "PromptDeleted",
      );
      expect(types.at(-1)).toBe("PromptDeleted");
    }
  });
});

describe("a long stream under concurrent writes (folded from its snapshots)", () => {
  it("a prompt of 48 versions: 10 new versions, 5 label moves and 5 deletes at once", async () => {
    const version = {
      commit_message: "v",
      provider: "OPEN_AI",
      model: "gpt-4o",
      messages: [{ role: "USER", content: "Hi {name}" }],
    };
    for (let round = 0; round < 3; round++) {
      const created = await api.ok("POST", "/v2/prompts", {
        space_id: spaceId,
        name: `long-race-${round}-${Date.now()}`,
        version,
      });
      const versions = `/v2/prompts/${created.id}/versions`;
      const ids: string[] = [created.version.id];
      // 49 events: the race crosses the 50th, where the first snapshot is kept.
      for (let i = 1; i < 48; i++) ids.push((await api.ok("POST", versions, version)).id);
      const calls = Array.from({ length: 20 }, (_, i) =>
        i < 10
          ? api.req("POST", versions, { body: version })
          : i < 15
            ? api.req("PUT", `/v2/prompt-versions/${ids[i]}/labels`, {
                body: { labels: ["production"] },
              })
            : api.req("DELETE", `/v2/prompts/${created.id}`),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      for (const st of statuses) expect([200, 201, 204, 404, 409], `status ${st}`).toContain(st);
      const uuid = decodeId("Prompt", created.id as string)!;
      const types = await history("catalog", `prompt-${uuid}`);
      const deletes = types.filter((t) => t === "PromptDeleted").length;
      expect(deletes).toBe(statuses.filter((st) => st === 204).length);
      expect(deletes).toBeLessThanOrEqual(1);
      if (deletes === 1) expect(types.at(-1)).toBe("PromptDeleted");
      // Every version answered 201 is in the history: 48 made first, then the race's.
      expect(types.filter((t) => t === "PromptVersionCreated")).toHaveLength(
        48 + statuses.slice(0, 10).filter((st) => st === 201).length,
      );
      const { rows } = await db.query<{ stream_version: number; state: Json }>(
        "select stream_version, state from catalog.snapshots where stream_id = $1",
        [`prompt-${uuid}`],
      );
      // The command that appended the 50th event kept the first snapshot (none before it).
      expect(rows).toHaveLength(types.length >= 50 ? 1 : 0);
      if (rows[0]) {
        expect(rows[0].stream_version).toBeGreaterThanOrEqual(50);
        expect(rows[0].stream_version).toBeLessThanOrEqual(types.length);
      }
      if (deletes === 0) {
        // Whatever the race left, the prompt still decides from its snapshot.
        const next = await api.ok("POST", versions, version);
        const labelled = await api.req("PUT", `/v2/prompt-versions/${next.id}/labels`, {
          body: { labels: ["production"] },
        });
        expect(labelled.status).toBe(200);
        const got = await api.ok("GET", `/v2/prompts/${created.id}/labels/production`);
        expect(got.id).toBe(next.id);
      }
    }
  });
});

/**
 * As `expectValid`, where every DELETE may also lose its retries to the PATCHes under load
 * (all 409): then nothing is deleted, also a history a single writer could have made.
 */
function expectValidOrUndeleted(types: string[], statuses: number[], deleted: string): void {
  if (types.includes(deleted)) return expectValid(types, statuses, deleted);
  for (const s of statuses) expect([200, 409], `status ${s}`).toContain(s);
  expect(statuses.filter((_, i) => i % 2 === 1).every((s) => s === 409)).toBe(true);
  expect(types[0]).toMatch(/Created$/);
}

describe("integrations under concurrent writes", () => {
  it("an AGENT integration and an LLM one: updates and deletes race to valid histories", async () => {
    for (let round = 0; round < 3; round++) {
      const agent = await api.req("POST", "/v2/integrations", {
        body: {
          type: "AGENT",
          name: `race-agent-${round}-${Date.now()}`,
          config: { endpoint: "https://agent.example.com/run", input_schema: { type: "object" } },
        },
      });
      expect(agent.status, JSON.stringify(agent.body)).toBe(201);
      const agentStatuses = await race(`/v2/integrations/${agent.body.id}`, (i) => ({
        type: "AGENT",
        description: `d${round}-${i}`,
      }));
      const agentUuid = decodeId("Integration", agent.body.id as string)!;
      expectValidOrUndeleted(
        await history("catalog", `integration-${agentUuid}`),
        agentStatuses,
        "IntegrationDeleted",
      );

      const llm = await api.req("POST", "/v2/integrations", {
        body: {
          type: "LLM",
          name: `race-llm-${round}-${Date.now()}`,
          config: { provider: "OPEN_AI", api_key: "sk-race" },
        },
      });
      expect(llm.status, JSON.stringify(llm.body)).toBe(201);
      const llmStatuses = await race(`/v2/integrations/${llm.body.id}`, (i) => ({
        type: "LLM",
        config: { is_function_calling_enabled: i % 4 === 0 },
      }));
      const llmUuid = decodeId("AiIntegration", llm.body.id as string)!;
      expectValidOrUndeleted(
        await history("catalog", `ai_integration-${llmUuid}`),
        llmStatuses,
        "AiIntegrationDeleted",
      );
    }
  });

  it("concurrent PATCHes of different Vertex fields both land; a model source is never raced away", async () => {
    const vertex = await api.req("POST", "/v2/integrations", {
      body: {
        type: "LLM",
        name: `race-vertex-${Date.now()}`,
        config: {
          provider: "VERTEX_AI",
          project_id: "p",
          location: "l",
          project_access_label: "a",
        },
      },
    });
    expect(vertex.status, JSON.stringify(vertex.body)).toBe(201);
    const path = `/v2/integrations/${vertex.body.id}`;
    for (let round = 0; round < 10; round++) {
      const sent = await Promise.all([
        api.req("PATCH", path, { body: { type: "LLM", config: { project_id: `p${round}` } } }),
        api.req("PATCH", path, { body: { type: "LLM", config: { location: `l${round}` } } }),
        api.req("PATCH", path, {
          body: { type: "LLM", config: { project_access_label: `a${round}` } },
        }),
      ]);
      expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await api.req("GET", path)).body.config).toEqual({
        provider: "VERTEX_AI",
        project_id: `p${round}`,
        location: `l${round}`,
        project_access_label: `a${round}`,
      });
    }
    // Each of two updates alone keeps a model source; together they would leave none.
    for (let round = 0; round < 5; round++) {
      const nim = await api.req("POST", "/v2/integrations", {
        body: {
          type: "LLM",
          name: `race-nim-${round}-${Date.now()}`,
          config: {
            provider: "NVIDIA_NIM",
            base_url: "https://nim.example.com",
            is_default_models_enabled: true,
            model_names: ["m"],
          },
        },
      });
      expect(nim.status, JSON.stringify(nim.body)).toBe(201);
      const at = `/v2/integrations/${nim.body.id}`;
      const statuses = (
        await Promise.all([
          api.req("PATCH", at, {
            body: { type: "LLM", config: { is_default_models_enabled: false } },
          }),
          api.req("PATCH", at, { body: { type: "LLM", config: { model_names: [] } } }),
        ])
      ).map((r) => r.status);
      const config = (await api.req("GET", at)).body.config;
      expect(config.is_default_models_enabled || config.model_names.length > 0).toBe(true);
      // Whichever landed second saw the first and was refused.
      expect(statuses.sort()).toEqual([200, 422]);
    }
  });

  it("a REMOTE evaluator naming an EVALUATOR integration that is being deleted: one of them wins", async () => {
    for (let round = 0; round < 10; round++) {
      const integration = await api.req("POST", "/v2/integrations", {
        body: {
          type: "EVALUATOR",
          name: `race-eval-${round}-${Date.now()}`,
          config: { endpoint: "https://eval.example.com/e", input_schema: { type: "object" } },
        },
      });
      expect(integration.status).toBe(201);
      const [evaluator, deleted] = await Promise.all([
        api.req("POST", "/v2/evaluators", {
          body: {
            space_id: spaceId,
            name: `race-remote-${round}-${Date.now()}`,
            type: "REMOTE",
            version: {
              commit_message: "r",
              remote_config: { integration_id: integration.body.id },
            },
          },
        }),
        api.req("DELETE", `/v2/integrations/${integration.body.id}`),
      ]);
      // Never an evaluator naming an integration that is gone, never a 5xx.
      expect([
        [201, 409],
        [422, 204],
      ]).toContainEqual([evaluator.status, deleted.status]);
      const still = await api.req("GET", `/v2/integrations/${integration.body.id}`);
      expect(still.status).toBe(evaluator.status === 201 ? 200 : 404);
    }
  });
});
