/**
 * Webhooks end to end: the REST group (webhooks, subscriptions, test deliveries, the delivery
 * log) and real deliveries of catalog events to receivers on loopback — signed so the public
 * `standardwebhooks` verifier accepts them, retried on a bounded schedule with one
 * `webhook-id`, cut off at `timeout_ms`, never lost when the dispatcher is killed mid-delivery,
 * and never held up by a dead endpoint.
 */
import { createHmac } from "node:crypto";
import pg from "pg";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { addOrganizationUser, identityDb, newUser, uuidOf } from "./identity-fixtures.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";
import { unrunnableTemplateEvaluator } from "./tasks-support.ts";

let api: Api;
let idb: pg.Pool;
let db: pg.Pool;
let orgId: string;
let spaceId: string;
const receivers: Receiver[] = [];

const RETRY_BASE_MS = 1000;

beforeAll(async () => {
  api = await startApi({
    env: {
      ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true",
      ARGUS_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      ARGUS_WEBHOOK_RETRY_MAX_MS: "4000",
      ARGUS_WEBHOOK_MAX_ATTEMPTS: "5",
      ARGUS_WEBHOOK_LEASE_MARGIN_MS: "1000",
    },
  });
  idb = identityDb(api);
  db = new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=webhooks",
    max: 2,
  });
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await db?.end();
  await idb?.end();
  await api?.stop();
});

const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};

let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

async function createWebhook(body: Json): Promise<Json> {
  const res = await api.req("POST", "/v2/webhooks", {
    body: { organization_id: orgId, name: unique("hook"), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const version = {
  commit_message: "v",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [{ role: "USER", content: "Hello {name}" }],
};

async function createPrompt(): Promise<Json> {
  const res = await api.req("POST", "/v2/prompts", {
    body: { space_id: spaceId, name: unique("prompt"), version },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const newVersion = async (promptId: string) => {
  const res = await api.req("POST", `/v2/prompts/${promptId}/versions`, { body: version });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

async function subscribe(webhookId: string, sourceId: string, event = "PROMPT_VERSION_CREATED") {
  const res = await api.req("POST", "/v2/webhook-subscriptions", {
    body: { webhook_id: webhookId, source_type: "PROMPT", source_id: sourceId, event },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const attempts = async (webhookId: string): Promise<Json[]> =>
  (await api.req("GET", `/v2/webhooks/${webhookId}/delivery-attempts?limit=500`)).body
    .delivery_attempts;

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("webhooks", () => {
  it("creates BEARER and HMAC webhooks: credentials write-only, the secret returned once", async () => {
    const r = await receiver();
    const bearer = await createWebhook({
      url: r.url,
      auth_token: "Bearer sekrit",
      headers: { "X-Team": "evals" },
      description: "mine",
    });
    expect(bearer).toMatchObject({
      organization_id: orgId,
      url: r.url,
      auth_type: "BEARER",
      timeout_ms: 30000,
      headers: { "X-Team": "evals" },
      description: "mine",
    });
    expect(bearer.signing_secret).toBeUndefined();
    expect(JSON.stringify(bearer)).not.toContain("sekrit");
    const hmac = await createWebhook({ url: r.url, auth_type: "HMAC_SHA256", timeout_ms: 1000 });
    expect(hmac.signing_secret).toMatch(/^whsec_/);
    expect(hmac.signing_secret_hint).toBe(`whsec_…${hmac.signing_secret.slice(-4)}`);
    const got = (await api.req("GET", `/v2/webhooks/${hmac.id}`)).body;
    expect(got.signing_secret).toBeUndefined();
    expect(got).toMatchObject({ id: hmac.id, auth_type: "HMAC_SHA256", timeout_ms: 1000 });
    expect(JSON.stringify(got)).not.toContain(hmac.signing_secret);
    // Nothing of either credential is logged by any process.
    for (const p of Object.values(api.stack.processes)) {
      expect(p.output()).not.toContain("sekrit");
      expect(p.output()).not.toContain(hmac.signing_secret);
    }
  });

  it("enforces the limits at their edges and refuses what is not a safe https URL", async () => {
    const r = await receiver();
    const bad = async (body: Json, status = 400, fragment = "invalid-request") =>
      expectProblem(
        await api.req("POST", "/v2/webhooks", {
          body: { organization_id: orgId, name: unique("edge"), url: r.url, ...body },
        }),
        status,
        fragment,
      );
    await createWebhook({ url: r.url, name: "n".repeat(255), timeout_ms: 60000 });
    await bad({ name: "n".repeat(256) });
    await bad({ timeout_ms: 999 });
    await bad({ timeout_ms: 60001 });
    await createWebhook({ url: r.url, timeout_ms: 1000 });
    const headers = (k: number) =>
      Object.fromEntries(Array.from({ length: k }, (_, i) => [`X-H${i}`, "v"]));
    await createWebhook({ url: r.url, headers: headers(20) });
    await bad({ headers: headers(21) });
    await bad({ headers: { Host: "evil" } });
    await bad({ headers: { "Content-Length": "1" } });
    await bad({ auth_type: "HMAC_SHA256", auth_token: "Bearer x" });
    await bad({ auth_type: "BASIC" });
    await bad({ id: "x" });
    await bad({ url: "http://example.com/hook" });
    await bad({ url: "ftp://example.com/hook" });
    await bad({ url: "https://user:pw@example.com/hook" });
    await bad({ url: "not a url" });
    const dup = await createWebhook({ url: r.url });
    await bad({ name: dup.name }, 409, "resource-conflict");
    expectProblem(
      await api.req("POST", "/v2/webhooks", {
        body: { organization_id: "T3JnYW5pemF0aW9uOm5vcGU=", name: "x", url: r.url },
      }),
      404,
      "resource-not-found",
    );
  });

  it("lists newest first, by organization and name; 404 for an organization not accessible", async () => {
    const r = await receiver();
    const tag = unique("listed");
    const a = await createWebhook({ url: r.url, name: `${tag}-a` });
    const b = await createWebhook({ url: r.url, name: `${tag}-B` });
    const page = await api.req("GET", `/v2/webhooks?org_id=${orgId}&name=${tag.toUpperCase()}`);
    expect(page.status).toBe(200);
    expect(page.body.webhooks.map((w: Json) => w.id)).toEqual([b.id, a.id]);
    const first = await api.req("GET", `/v2/webhooks?name=${tag}&limit=1`);
    expect(first.body.webhooks.map((w: Json) => w.id)).toEqual([b.id]);
    expect(first.body.pagination.has_more).toBe(true);
    const second = await api.req(
      "GET",
      `/v2/webhooks?name=${tag}&limit=1&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`,
    );
    expect(second.body.webhooks.map((w: Json) => w.id)).toEqual([a.id]);
    expect(second.body.pagination.has_more).toBe(false);
    expectProblem(
      await api.req("GET", "/v2/webhooks?org_id=T3JnYW5pemF0aW9uOm5vcGU="),
      404,
      "resource-not-found",
    );
  });

  it("updates what is given (headers replaced, null description cleared); auth_type is fixed", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url, description: "d", headers: { "X-A": "1" } });
    const res = await api.req("PATCH", `/v2/webhooks/${w.id}`, {
      body: {
        name: unique("renamed"),
        description: null,
        headers: { "X-B": "2" },
        timeout_ms: 5000,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      description: "",
      headers: { "X-B": "2" },
      timeout_ms: 5000,
      url: r.url,
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(w.updated_at));
    expectProblem(
      await api.req("PATCH", `/v2/webhooks/${w.id}`, { body: { auth_type: "HMAC_SHA256" } }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/webhooks/${w.id}`, { body: {} }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/webhooks/${w.id}`, {
        body: { url: "https://127.0.0.1.nip.io@/x" },
      }),
      400,
      "invalid-request",
    );
  });

  it("members of the organization read its webhooks; only admins manage them; others see nothing", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const member = await newUser(api, idb, "MEMBER");
    await addOrganizationUser(api, orgId, member.id, "READ_ONLY");
    const outsider = await newUser(api, idb, "MEMBER");
    expect((await api.req("GET", `/v2/webhooks/${w.id}`, { key: member.key })).status).toBe(200);
    expectProblem(
      await api.req("PATCH", `/v2/webhooks/${w.id}`, { key: member.key, body: { name: "x" } }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("POST", "/v2/webhooks", {
        key: member.key,
        body: { organization_id: orgId, name: unique("m"), url: r.url },
      }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("DELETE", `/v2/webhooks/${w.id}`, { key: member.key }),
      403,
      "access-forbidden",
    );
    expectProblem(
      await api.req("GET", `/v2/webhooks/${w.id}`, { key: outsider.key }),
      404,
      "resource-not-found",
    );
    const listed = await api.req("GET", "/v2/webhooks", { key: outsider.key });
    expect(listed.body.webhooks).toEqual([]);
    expectProblem(
      await api.req("GET", `/v2/webhooks/${w.id}`, { key: null }),
      401,
      "authentication-required",
    );
  });

  it("deletes a webhook with its subscriptions", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const p = await createPrompt();
    const s = await subscribe(w.id, p.id);
    expect((await api.req("DELETE", `/v2/webhooks/${w.id}`)).status).toBe(204);
    expectProblem(await api.req("GET", `/v2/webhooks/${w.id}`), 404, "resource-not-found");
    expectProblem(
      await api.req("GET", `/v2/webhook-subscriptions/${s.id}`),
      404,
      "resource-not-found",
    );
    expectProblem(await api.req("DELETE", `/v2/webhooks/${w.id}`), 404, "resource-not-found");
  });
});

describe("test deliveries", () => {
  it("sends a real test event with the token verbatim and the custom headers, and records it", async () => {
    const r = await receiver();
    const w = await createWebhook({
      url: r.url,
      auth_token: "Token abc",
      headers: { "X-Team": "evals" },
    });
    const res = await api.req("POST", `/v2/webhooks/${w.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status_code: 200, error_message: null });
    const [got] = await r.waitFor(1);
    expect(got!.headers.authorization).toBe("Token abc");
    expect(got!.headers["x-team"]).toBe("evals");
    expect(JSON.parse(got!.body)).toMatchObject({ event: "webhook.test" });
    const [logged] = await attempts(w.id);
    expect(logged).toMatchObject({ attempt_number: 1, status_code: 200, error_message: null });
    expect(logged!.payload).toEqual(JSON.parse(got!.body));
  });

  it("reports the endpoint's failure: its status, or 502 when nothing answered", async () => {
    const r = await receiver();
    r.script([{ status: 500 }]);
    const w = await createWebhook({ url: r.url });
    const res = await api.req("POST", `/v2/webhooks/${w.id}/test`);
    expect(res.body.status_code).toBe(500);
    expect(res.body.error_message).toMatch(/500/);
    const closed = await receiver();
    const url = closed.url;
    await closed.close();
    const dead = await createWebhook({ url });
    const refused = await api.req("POST", `/v2/webhooks/${dead.id}/test`);
    expect(refused.status).toBe(200);
    expect(refused.body.status_code).toBe(502);
    expect(refused.body.error_message).toEqual(expect.any(String));
  });

  it("timeout_ms 1000 against an endpoint that never answers: cut off within 1.1 s, a failure", async () => {
    const r = await receiver();
    r.script(["hang"]);
    const w = await createWebhook({ url: r.url, timeout_ms: 1000 });
    const started = Date.now();
    const res = await api.req("POST", `/v2/webhooks/${w.id}/test`);
    const elapsed = Date.now() - started;
    expect(res.body.status_code).toBe(502);
    expect(res.body.error_message).toMatch(/time/i);
    const { rows } = await db.query<{ duration_ms: number }>(
      "select duration_ms from delivery_attempts where webhook_id = $1",
      [uuidOf(w.id)],
    );
    expect(rows[0]!.duration_ms).toBeGreaterThanOrEqual(990);
    expect(rows[0]!.duration_ms).toBeLessThanOrEqual(1100);
    expect(elapsed).toBeLessThan(2000);
  });

  it("HMAC_SHA256 webhooks do not take test deliveries (400)", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url, auth_type: "HMAC_SHA256" });
    expectProblem(await api.req("POST", `/v2/webhooks/${w.id}/test`), 400, "invalid-request");
    expect(r.connections).toBe(0);
  });
});

describe("subscriptions", () => {
  it("subscribe, list, get and delete in the public API's order of checks", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const p = await createPrompt();
    const s = await subscribe(w.id, p.id);
    expect(s).toMatchObject({
      webhook_id: w.id,
      source_type: "PROMPT",
      source_id: p.id,
      event: "PROMPT_VERSION_CREATED",
    });
    const post = (body: Json) => api.req("POST", "/v2/webhook-subscriptions", { body });
    const base = { webhook_id: w.id, source_type: "PROMPT", source_id: p.id };
    expectProblem(
      await post({ ...base, event: "PROMPT_VERSION_CREATED" }),
      409,
      "resource-conflict",
    );
    expectProblem(
      await post({ ...base, event: "EVALUATOR_VERSION_CREATED" }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await post({ ...base, source_id: "UHJvbXB0Om5vcGU=", event: "PROMPT_VERSION_LABELED" }),
      404,
      "resource-not-found",
    );
    expectProblem(
      await post({ ...base, webhook_id: "V2ViaG9vazpub3Bl", event: "PROMPT_VERSION_LABELED" }),
      404,
      "resource-not-found",
    );
    const labeled = await subscribe(w.id, p.id, "PROMPT_VERSION_LABELED");
    const list = await api.req(
      "GET",
      `/v2/webhook-subscriptions?source_type=PROMPT&source_id=${p.id}`,
    );
    expect(list.body.subscriptions.map((x: Json) => x.id)).toEqual([labeled.id, s.id]);
    expectProblem(
      await api.req("GET", "/v2/webhook-subscriptions?source_type=PROMPT"),
      400,
      "invalid-request",
    );
    const all = await api.req("GET", "/v2/webhook-subscriptions?limit=100");
    expect(all.body.subscriptions.map((x: Json) => x.id)).toContain(s.id);
    expect((await api.req("GET", `/v2/webhook-subscriptions/${s.id}`)).body).toEqual(s);
    expect((await api.req("DELETE", `/v2/webhook-subscriptions/${s.id}`)).status).toBe(204);
    expectProblem(
      await api.req("GET", `/v2/webhook-subscriptions/${s.id}`),
      404,
      "resource-not-found",
    );
  });

  it("a prompt's deletion ends its subscriptions", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const p = await createPrompt();
    const s = await subscribe(w.id, p.id);
    expect((await api.req("DELETE", `/v2/prompts/${p.id}`)).status).toBe(204);
    await until(
      () => api.req("GET", `/v2/webhook-subscriptions/${s.id}`),
      (res) => res.status === 404,
    );
  });

  it("a space subscription takes an admin; a read-only user may not subscribe (403)", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const res = await api.req("POST", "/v2/webhook-subscriptions", {
      body: {
        webhook_id: w.id,
        source_type: "SPACE",
        source_id: spaceId,
        event: "ONLINE_TASK_RUN_FAILED",
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const reader = await newUser(api, idb, "MEMBER");
    await addOrganizationUser(api, orgId, reader.id, "READ_ONLY");
    const p = await createPrompt();
    expectProblem(
      await api.req("POST", "/v2/webhook-subscriptions", {
        key: reader.key,
        body: {
          webhook_id: w.id,
          source_type: "PROMPT",
          source_id: p.id,
          event: "PROMPT_VERSION_CREATED",
        },
      }),
      403,
      "access-forbidden",
    );
  });
});

/** Verifies both signature schemes of a received HMAC delivery. */
function verify(secret: string, got: { headers: Json; body: string }) {
  new StandardWebhook(secret).verify(got.body, {
    "webhook-id": got.headers["webhook-id"],
    "webhook-timestamp": got.headers["webhook-timestamp"],
    "webhook-signature": got.headers["webhook-signature"],
  });
  const ts = got.headers["x-arize-webhook-timestamp"];
  const hex = createHmac("sha256", secret).update(`${ts}.${got.body}`).digest("hex");
  expect(got.headers["x-arize-webhook-signature"]).toBe(`v1=${hex}`);
}

describe("deliveries", () => {
  it("delivers a prompt's new version and label, signed both ways", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url, auth_type: "HMAC_SHA256" });
    const p = await createPrompt();
    await subscribe(w.id, p.id);
    await subscribe(w.id, p.id, "PROMPT_VERSION_LABELED");
    const v2 = await newVersion(p.id);
    const [created] = await r.waitFor(1);
    verify(w.signing_secret, created!);
    const body = JSON.parse(created!.body);
    expect(body).toMatchObject({
      event: "prompt.version.created",
      event_type: "PROMPT_VERSION_CREATED",
      data: { prompt_id: p.id, prompt_version_id: v2.id, space_id: spaceId },
    });
    expect(created!.headers["x-arize-webhook-event"]).toBe("prompt.version.created");
    expect(created!.headers["webhook-id"]).toBe(body.event_id);
    await api.req("PUT", `/v2/prompt-versions/${v2.id}/labels`, {
      body: { labels: ["production"] },
    });
    const [, labeled] = await r.waitFor(2);
    verify(w.signing_secret, labeled!);
    expect(JSON.parse(labeled!.body)).toMatchObject({
      event: "prompt.version.labeled",
      data: { label: "production", prompt_version_id: v2.id },
    });
  });

  it("500, 500, 500, 200: exactly 4 attempts with one webhook-id, fresh signatures, all listed", async () => {
    const r = await receiver();
    r.script([{ status: 500 }, { status: 500 }, { status: 500 }]);
    const w = await createWebhook({ url: r.url, auth_type: "HMAC_SHA256" });
    const p = await createPrompt();
    await subscribe(w.id, p.id);
    await newVersion(p.id);
    const got = await r.waitFor(4, 30_000);
    for (const g of got) verify(w.signing_secret, g);
    expect(new Set(got.map((g) => g.headers["webhook-id"])).size).toBe(1);
    const stamps = got.map((g) => Number(g.headers["webhook-timestamp"]));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    expect(stamps[3]! > stamps[0]!).toBe(true);
    // Backoff: each wait at least half its doubling step.
    for (let i = 1; i < 4; i++)
      expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(
        (RETRY_BASE_MS * 2 ** (i - 1)) / 2 - 50,
      );
    const listed = await until(
      () => attempts(w.id),
      (a) => a.length === 4,
    );
    expect(listed.map((a) => [a.attempt_number, a.status_code])).toEqual([
      [4, 200],
      [3, 500],
      [2, 500],
      [1, 500],
    ]);
    expect(listed[3]!.error_message).toMatch(/500/);
    expect(listed[0]!.error_message).toBeNull();
    await new Promise((res) => setTimeout(res, 1500));
    expect(r.received).toHaveLength(4);
  });

  it("410 stops at once; Retry-After is honoured", async () => {
    const gone = await receiver();
    gone.script([{ status: 410 }]);
    const slow = await receiver();
    slow.script([{ status: 503, headers: { "retry-after": "3" } }]);
    const p = await createPrompt();
    const w1 = await createWebhook({ url: gone.url });
    const w2 = await createWebhook({ url: slow.url });
    await subscribe(w1.id, p.id);
    await subscribe(w2.id, p.id);
    await newVersion(p.id);
    const [first, second] = await slow.waitFor(2, 20_000);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2900);
    expect(gone.received).toHaveLength(1);
    expect((await attempts(w1.id)).map((a) => a.status_code)).toEqual([410]);
  });

  it("a receiver that never answers does not hold up the others", async () => {
    const dead = await receiver();
    dead.script(Array.from({ length: 100 }, () => "hang" as const));
    const live = await receiver();
    const p = await createPrompt();
    const deadHook = await createWebhook({ url: dead.url, timeout_ms: 60000 });
    const liveHook = await createWebhook({ url: live.url });
    await subscribe(deadHook.id, p.id);
    await subscribe(liveHook.id, p.id);
    const started = Date.now();
    for (let i = 0; i < 10; i++) await newVersion(p.id);
    await live.waitFor(10, 15_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(dead.received.length).toBeGreaterThan(0);
    expect(dead.received.length).toBeLessThanOrEqual(4);
  });

  it("kill -9 mid-delivery: every event is still delivered after restart, same webhook-id", async () => {
    const r = await receiver();
    // The first four attempts (all the slots one webhook gets) never answer; the fifth event waits.
    r.script(["hang", "hang", "hang", "hang"]);
    const w = await createWebhook({ url: r.url, timeout_ms: 3000 });
    const p = await createPrompt();
    await subscribe(w.id, p.id);
    for (let i = 0; i < 5; i++) await newVersion(p.id);
    const hung = (await r.waitFor(4)).map((g) => g.headers["webhook-id"] as string);
    // Every event consumed (its delivery row made): what follows is the delivery's own recovery,
    // not JetStream's redelivery of an unacknowledged event (which also delivers, after ack_wait).
    await until(
      async () =>
        (
          await db.query<{ n: number }>(
            "select count(*)::int as n from deliveries where webhook_id = $1",
            [uuidOf(w.id)],
          )
        ).rows[0]!.n,
      (count) => count === 5,
    );
    await api.stack.processes["webhook-dispatcher"]!.stop("SIGKILL");
    await api.stack.restart("webhook-dispatcher");
    const answered = () => r.received.slice(4).map((g) => g.headers["webhook-id"] as string);
    await until(
      async () => new Set(answered()),
      (ids) => ids.size === 5,
    );
    // The four cut off mid-delivery came again under their own ids, and so did the fifth.
    for (const id of hung) expect(answered()).toContain(id);
    expect(new Set(r.received.map((g) => g.headers["webhook-id"])).size).toBe(5);
    const listed = await until(
      () => attempts(w.id),
      (a) => a.filter((x) => x.status_code === 200).length === 5,
    );
    expect(new Set(listed.filter((x) => x.status_code === 200).map((x) => x.event_id)).size).toBe(
      5,
    );
  });
});

describe("races", () => {
  it("20 identical subscriptions at once: one 201, the rest 409, never a 5xx", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const p = await createPrompt();
    const body = {
      webhook_id: w.id,
      source_type: "PROMPT",
      source_id: p.id,
      event: "PROMPT_VERSION_CREATED",
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.req("POST", "/v2/webhook-subscriptions", { body })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    const listed = await api.req(
      "GET",
      `/v2/webhook-subscriptions?source_type=PROMPT&source_id=${p.id}`,
    );
    expect(listed.body.subscriptions).toHaveLength(1);
  });

  it("201 webhooks subscribing to one event of a source at once: exactly 200 do (the cap), one 422", async () => {
    const r = await receiver();
    const p = await createPrompt();
    const hooks: Json[] = [];
    for (let i = 0; i < 201; i += 20)
      hooks.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, 201 - i) }, () => createWebhook({ url: r.url })),
        )),
      );
    const answers: number[] = [];
    for (let i = 0; i < hooks.length; i += 40)
      answers.push(
        ...(
          await Promise.all(
            hooks.slice(i, i + 40).map((h) =>
              api.req("POST", "/v2/webhook-subscriptions", {
                body: {
                  webhook_id: h.id,
                  source_type: "PROMPT",
                  source_id: p.id,
                  event: "PROMPT_VERSION_CREATED",
                },
              }),
            ),
          )
        ).map((a) => a.status),
      );
    expect(answers.filter((s) => s === 201)).toHaveLength(200);
    expect(answers.filter((s) => s === 422)).toHaveLength(1);
  });

  it("concurrent renames, updates and a delete of one webhook leave a valid history, never a 5xx", async () => {
    const r = await receiver();
    const w = await createWebhook({ url: r.url });
    const taken = await createWebhook({ url: r.url });
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        api.req("PATCH", `/v2/webhooks/${w.id}`, { body: { timeout_ms: 1000 + i } }),
      ),
      ...Array.from({ length: 5 }, () =>
        api.req("PATCH", `/v2/webhooks/${w.id}`, { body: { name: taken.name } }),
      ),
      api.req("DELETE", `/v2/webhooks/${w.id}`),
      ...Array.from({ length: 4 }, () => api.req("POST", `/v2/webhooks/${w.id}/test`)),
    ]);
    for (const a of answers) expect([200, 204, 404, 409]).toContain(a.status);
    // The rename to a taken name never succeeds.
    expect(answers.slice(10, 15).every((a) => a.status !== 200)).toBe(true);
    expectProblem(await api.req("GET", `/v2/webhooks/${w.id}`), 404, "resource-not-found");
  });
});

describe("online task failures", () => {
  it("a failed run of a continuous task goes to its ONLINE_TASK and SPACE subscribers, once per cause", async () => {
    const byTask = await receiver();
    const bySpace = await receiver();
    const project = (
      await api.req("POST", "/v2/projects", { body: { space_id: spaceId, name: unique("proj") } })
    ).body;
    // An integration no run can call: each run FAILS, with one reason.
    const evaluator = await unrunnableTemplateEvaluator(
      async (method, path, body) => (await api.req(method, path, { body })).body,
      spaceId,
      unique("bedrock"),
    );
    const task = await api.req("POST", "/v2/tasks", {
      body: {
        type: "TEMPLATE_EVALUATION",
        name: unique("online"),
        project_id: project.id,
        is_continuous: true,
        evaluators: [{ evaluator_id: evaluator }],
      },
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const w1 = await createWebhook({ url: byTask.url });
    const w2 = await createWebhook({ url: bySpace.url });
    const sub = (webhook: string, source_type: string, source_id: string) =>
      api.req("POST", "/v2/webhook-subscriptions", {
        body: { webhook_id: webhook, source_type, source_id, event: "ONLINE_TASK_RUN_FAILED" },
      });
    const taskSub = await sub(w1.id, "ONLINE_TASK", task.body.id);
    expect(taskSub.status, JSON.stringify(taskSub.body)).toBe(201);
    expect((await sub(w2.id, "SPACE", spaceId)).status).toBe(201);
    const trigger = () =>
      api.req("POST", `/v2/tasks/${task.body.id}/trigger`, {
        body: { data_start_time: new Date(Date.now() - 3_600_000).toISOString() },
      });
    const run = (await trigger()).body;
    const [got] = await byTask.waitFor(1);
    expect(JSON.parse(got!.body)).toMatchObject({
      event: "online_task.run.failed",
      data: { task_id: task.body.id, task_run_id: run.id, status: "failed" },
    });
    await bySpace.waitFor(1);
    // The same cause again: no second delivery.
    const again = (await trigger()).body;
    await until(
      () => api.req("GET", `/v2/task-runs/${again.id}`),
      (r) => r.body.status === "FAILED",
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(byTask.received).toHaveLength(1);
    expect(bySpace.received).toHaveLength(1);
    // A task is the source only while it exists.
    expect((await api.req("DELETE", `/v2/tasks/${task.body.id}`)).status).toBe(204);
    await until(
      () => api.req("GET", `/v2/webhook-subscriptions/${taskSub.body.id}`),
      (r) => r.status === 404,
    );
  });
});
