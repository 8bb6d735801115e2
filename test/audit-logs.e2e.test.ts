import { randomUUID } from "node:crypto";
import pg from "pg";
import { encodeId } from "@argus/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, listAuditLogs } from "@arizeai/ax-client";
import {
  expectProblem,
  startApi,
  storedIdsIn,
  wholeAuditLog,
  type Api,
  type Json,
} from "./support.ts";

let api: Api;
let orgId: string;
let spaceId: string;
let adminUserId: string;

beforeAll(async () => {
  api = await startApi();
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const mine = await api.req("GET", "/v2/api-keys");
  adminUserId = mine.body.api_keys[0].created_by_user_id;
}, 120_000);
afterAll(() => api?.stop());

/** The audit log follows JetStream: poll until `ok` holds (or fail after ~10 s). */
async function eventually(path: string, ok: (logs: Json[]) => boolean): Promise<Json[]> {
  let logs: Json[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await api.req("GET", path);
    expect(res.status).toBe(200);
    logs = res.body.logs;
    if (ok(logs)) return logs;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`audit log never satisfied the check: ${JSON.stringify(logs)}`);
}

const serviceKey = async (role: string) =>
  (
    await api.req("POST", "/v2/api-keys", {
      body: {
        key_type: "SERVICE",
        name: `svc-${role}`,
        organizations: [{ org_id: orgId, spaces: [{ space_id: spaceId, role: { name: role } }] }],
      },
    })
  ).body;

describe("GET /v2/audit-logs", () => {
  it("records who did what, when and from where (read with the public client)", async () => {
    const before = new Date(Date.now() - 1000);
    const space = await api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name: "audited" },
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    expect(space.status).toBe(201);
    await eventually("/v2/audit-logs?operation_name=SpaceCreated", (l) =>
      l.some((e) => e.resource_id === space.body.id),
    );
    const client = createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });
    const page = await listAuditLogs({ client, startTime: before, operationType: "MUTATION" });
    const entry = page.data.find((e) => e.operationName === "SpaceCreated");
    expect(entry).toMatchObject({ userId: adminUserId, operationType: "MUTATION" });
    expect(entry!.ip).not.toBe("");
    // The peer's address, never a header the client wrote: the gateway trusts no proxy.
    expect(entry!.ip).not.toBe("203.0.113.7");
    expect(entry!.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(JSON.parse(entry!.variables!)).toMatchObject({ name: "audited" });

    const raw = await api.req("GET", "/v2/audit-logs?operation_name=SpaceCreated");
    const rawEntry = raw.body.logs.find((e: Json) => e.resource_id === space.body.id);
    expect(rawEntry).toMatchObject({
      resource_type: "space",
      user_id: adminUserId,
      api_key_id: expect.any(String),
    });
    // Headless initialization acted as the system: no user.
    const init = await api.req("GET", "/v2/audit-logs?operation_name=AccountCreated");
    expect(init.body.logs).toHaveLength(1);
    expect(init.body.logs[0].user_id).toBeNull();
  });

  it("records service accounts as actors", async () => {
    const admin = await serviceKey("ADMIN");
    const victim = await serviceKey("MEMBER");
    const revoke = await api.req("PUT", `/v2/api-keys/${victim.id}/revoke`, { key: admin.key });
    expect(revoke.status).toBe(204);
    const logs = await eventually("/v2/audit-logs?operation_name=ApiKeyRevoked", (l) =>
      l.some((e) => e.resource_id === victim.id),
    );
    const entry = logs.find((e) => e.resource_id === victim.id)!;
    expect(entry.user_id).toBeNull();
    expect(entry.service_account_id).toBe(admin.bot_user.id);
    expect(entry.api_key_id).toBe(admin.id);
  });

  it("filters by user, operation type and time window, and pages", async () => {
    const space = await api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name: "filtered" },
    });
    await eventually("/v2/audit-logs", (l) => l.some((e) => e.resource_id === space.body.id));
    const byAdmin = await api.req(
      "GET",
      `/v2/audit-logs?user_id=${encodeURIComponent(adminUserId)}`,
    );
    expect(byAdmin.body.logs.length).toBeGreaterThan(0);
    expect(byAdmin.body.logs.every((e: Json) => e.user_id === adminUserId)).toBe(true);
    expect((await api.req("GET", "/v2/audit-logs?operation_type=QUERY")).body.logs).toEqual([]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const further = new Date(Date.now() + 7200_000).toISOString();
    const ahead = await api.req("GET", `/v2/audit-logs?start_time=${future}&end_time=${further}`);
    expect(ahead.body.logs).toEqual([]);
    // end_time defaults to now, so a start_time in the future is an empty (inverted) window: 400.
    expectProblem(
      await api.req("GET", `/v2/audit-logs?start_time=${future}`),
      400,
      "invalid-request",
    );
    const past = new Date(Date.now() - 3600_000).toISOString();
    expect((await api.req("GET", `/v2/audit-logs?end_time=${past}`)).body.logs).toEqual([]);
    expectProblem(
      await api.req("GET", `/v2/audit-logs?start_time=${future}&end_time=${past}`),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("GET", "/v2/audit-logs?start_time=yesterday"),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("GET", "/v2/audit-logs?operation_type=DELETE"),
      400,
      "invalid-request",
    );
    // user_id filters: an id of another type is a bad parameter; a user with no entries, none.
    const serviceAccount = Buffer.from(`ServiceAccount:${randomUUID()}`).toString("base64");
    expectProblem(
      await api.req("GET", `/v2/audit-logs?user_id=${encodeURIComponent(serviceAccount)}`),
      400,
      "invalid-request",
    );
    const nobody = Buffer.from(`User:${randomUUID()}`).toString("base64");
    expect(
      (await api.req("GET", `/v2/audit-logs?user_id=${encodeURIComponent(nobody)}`)).body.logs,
    ).toEqual([]);

    const first = await api.req("GET", "/v2/audit-logs?limit=1");
    expect(first.body.logs).toHaveLength(1);
    expect(first.body.pagination.has_more).toBe(true);
    const second = await api.req(
      "GET",
      `/v2/audit-logs?limit=1&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`,
    );
    expect(second.body.logs[0].id).not.toBe(first.body.logs[0].id);
    // Newest first.
    expect(second.body.logs[0].created_at <= first.body.logs[0].created_at).toBe(true);
    expectProblem(await api.req("GET", "/v2/audit-logs?limit=101"), 400, "invalid-request");
  });

  it("is for account admins only", async () => {
    const member = await serviceKey("ADMIN");
    expectProblem(
      await api.req("GET", "/v2/audit-logs", { key: member.key }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("GET", "/v2/audit-logs", { key: null }),
      401,
      "authentication-required",
    );
  });

  it("records each event exactly once, and resumes after an identity restart", async () => {
    const db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL });
    try {
      await api.stack.restart("identity");
      const space = await api.req("POST", "/v2/spaces", {
        body: { organization_id: orgId, name: "after restart" },
      });
      expect(space.status).toBe(201);
      // Every identity event (all belong to the account) has exactly one entry, none twice.
      const events = Number((await db.query("select count(*) from identity.events")).rows[0].count);
      expect(events).toBeLessThan(100);
      const logs = await eventually("/v2/audit-logs?limit=100", (l) => l.length >= events);
      expect(logs).toHaveLength(events);
      expect(logs.some((e) => e.resource_id === space.body.id)).toBe(true);
      expect(new Set(logs.map((e) => e.id)).size).toBe(events);
      const dup = await db.query(
        "select count(*) - count(distinct event_id) as d from identity.audit_log",
      );
      expect(Number(dup.rows[0].d)).toBe(0);
    } finally {
      await db.end();
    }
  });

  it("logs a bulk write as the examples it touched, the same as its stored event's cut", async () => {
    const db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL });
    try {
      // 500 examples: their ids alone put the event over the bound, so the bus carries it cut.
      const examples = Array.from({ length: 500 }, (_, n) => ({ question: `q${n}`, n }));
      const created = await api.req("POST", "/v2/datasets", {
        body: { space_id: spaceId, name: "audited bulk", examples },
      });
      expect(created.status).toBe(201);
      const page = await api.req("GET", `/v2/datasets/${created.body.id}/examples?limit=500`);
      expect(page.body.examples).toHaveLength(500);
      const patched = await api.req("PATCH", `/v2/datasets/${created.body.id}/examples`, {
        body: { examples: page.body.examples.map((e: Json) => ({ id: e.id, n: -1 })) },
      });
      expect(patched.status).toBe(200);
      const { rows } = await db.query<{ event_type: string; data: Record<string, unknown> }>(
        `select event_type, data from dataset.events
          where event_type in ('DatasetExamplesInserted', 'DatasetExamplesUpdated')
            and data->>'dataset_id' = (select id::text from dataset.datasets where name = 'audited bulk')`,
      );
      expect(rows.map((r) => r.event_type).sort()).toEqual([
        "DatasetExamplesInserted",
        "DatasetExamplesUpdated",
      ]);
      for (const { event_type, data } of rows) {
        const ofDataset = (e: Json) => JSON.parse(e.variables).dataset_id === created.body.id;
        const logs = await eventually(`/v2/audit-logs?operation_name=${event_type}`, (l) =>
          l.some(ofDataset),
        );
        const variables = JSON.parse(logs.find(ofDataset)!.variables) as { examples: Json[] };
        // The stored event's ids, answered as the API names them.
        const { examples: stored, ...head } = data as {
          examples: { id: string }[];
          version_id: string;
        };
        expect(variables).toEqual({
          ...head,
          dataset_id: created.body.id,
          space_id: spaceId,
          version_id: encodeId("DatasetVersion", head.version_id),
          examples: stored.map(({ id }) => ({ id: encodeId("DatasetExample", id) })),
        });
        expect(variables.examples.map((e) => e.id).sort()).toEqual(
          page.body.examples.map((e: Json) => e.id).sort(),
        );
      }
    } finally {
      await db.end();
    }
  });
});

describe("service accounts as creators and annotators", () => {
  // Last in the file: it writes events of other services, which the test above counts against
  // identity's own.
  it("what a service account creates or annotates names no user (it is no user); the log names it", async () => {
    const admin = await serviceKey("ADMIN");
    const prompt = await api.req("POST", "/v2/prompts", {
      key: admin.key,
      body: {
        space_id: spaceId,
        name: `by-service-${Date.now()}`,
        version: {
          commit_message: "c",
          provider: "OPEN_AI",
          messages: [{ role: "USER", content: "hi" }],
        },
      },
    });
    expect(prompt.status).toBe(201);
    expect([prompt.body.created_by_user_id, prompt.body.version.created_by_user_id]).toEqual([
      "",
      "",
    ]);
    const dataset = await api.req("POST", "/v2/datasets", {
      body: { space_id: spaceId, name: `annotated-${Date.now()}`, examples: [{ q: "a" }] },
    });
    await api.req("POST", "/v2/annotation-configs", {
      body: {
        space_id: spaceId,
        name: "svc-rating",
        annotation_config_type: "CONTINUOUS",
        minimum_score: 0,
        maximum_score: 1,
      },
    });
    const [example] = (await api.req("GET", `/v2/datasets/${dataset.body.id}/examples`)).body
      .examples as Json[];
    const annotated = await api.req("POST", `/v2/datasets/${dataset.body.id}/examples/annotate`, {
      key: admin.key,
      body: {
        annotations: [{ record_id: example!.id, values: [{ name: "svc-rating", score: 0.5 }] }],
      },
    });
    expect(annotated.status).toBeLessThan(300);
    const [read] = (await api.req("GET", `/v2/datasets/${dataset.body.id}/examples`)).body
      .examples as Json[];
    expect(read!.annotations).toEqual([
      expect.objectContaining({ name: "svc-rating", score: 0.5 }),
    ]);
    expect((read!.annotations as Json[])[0]).not.toHaveProperty("annotator");
    const logs = await eventually("/v2/audit-logs?operation_name=PromptCreated", (l) =>
      l.some((e) => e.resource_id === prompt.body.id),
    );
    expect(logs.find((e) => e.resource_id === prompt.body.id)!.service_account_id).toBe(
      admin.bot_user.id,
    );
  });
});

describe("the whole log", () => {
  it("names every resource by its public id: no stored uuid in any entry", async () => {
    expect(storedIdsIn(await wholeAuditLog(api))).toEqual([]);
  });
});
