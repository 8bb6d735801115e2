/**
 * Safe retries (docs/architecture.md, "Safe retries"; issue 29 item 8), on real processes'
 * code in one: identity, the catalog and the gateway in-process on one fresh database, with one
 * pinned clock for identity and the catalog. Tags are the resource written: a tag's creation is
 * a command like every other, and its name is unique in its space.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createChannel,
  callUnary,
  createLogger,
  decodeId,
  encodeId,
  fixedClock,
  idempotencyScope,
  type Principal,
} from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { TagServiceService } from "@argus/proto/catalog/v1/tags";
import { IdempotencyServiceService } from "@argus/proto/identity/v1/idempotency";
import {
  createTestDatabase,
  freePort,
  testCallKeys,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startIdentity, type RunningIdentity } from "@argus/identity";
import { startCatalog, type RunningCatalog } from "@argus/catalog";
import { loadGatewayConfig, startGateway, type RunningGateway } from "@argus/gateway";
import { requestFingerprint } from "../services/gateway/src/http/idempotentRequests.ts";

const PINNED = new Date("2031-05-06T07:08:09.000Z");
const DAY_MS = 24 * 60 * 60 * 1000;
const LEASE_MS = 15_000;
const clock = fixedClock(PINNED);
const apiKey = `ak-idem-${"i".repeat(40)}`;
const keys = testCallKeys();
const logger = createLogger({ service: "idempotency-test", level: "warn" });

let db: TestDatabase;
let sql: pg.Pool;
let identity: RunningIdentity;
let catalog: RunningCatalog;
let gateway: RunningGateway;
let identityEnv: NodeJS.ProcessEnv;
let gatewayEnv: NodeJS.ProcessEnv;
let baseUrl: string;
let spaceId: string;
let admin: Principal;

async function startTheGateway(): Promise<void> {
  gateway = await startGateway(loadGatewayConfig(gatewayEnv), logger);
  baseUrl = `http://127.0.0.1:${gateway.port}`;
}

interface Answer {
  status: number;
  replayed: boolean;
  retryAfter: string | null;
  text: string;
  body: Record<string, unknown>;
}

async function post(
  path: string,
  body: unknown,
  o: { key?: string | undefined; bearer?: string } = {},
): Promise<Answer> {
  const res = await fetch(baseUrl + path, {
    method: "POST",
    headers: {
      authorization: `Bearer ${o.bearer ?? apiKey}`,
      "content-type": "application/json",
      ...(o.key === undefined ? {} : { "idempotency-key": o.key }),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    replayed: res.headers.get("idempotent-replayed") === "true",
    retryAfter: res.headers.get("retry-after"),
    text,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

const tagBody = (name: string) => ({ name, space_id: spaceId, description: "d" });

/** TagCreated events of tags named `name`: the effects, whatever the answers said. */
async function created(name: string): Promise<number> {
  const { rows } = await sql.query<{ n: string }>(
    `select count(*) as n from catalog.events
      where event_type = 'TagCreated' and data->>'name' = $1`,
    [name],
  );
  return Number(rows[0]!.n);
}

const fingerprintOf = (body: unknown) =>
  requestFingerprint({ method: "post", route: "/v2/tags", params: {}, query: {}, body });

/** The catalog's CreateTag as the gateway forwards it for a request with `key`. */
async function forwardCreateTag(key: string, name: string) {
  const channel = createChannel(`127.0.0.1:${catalog.grpcPort}`);
  try {
    return await callUnary(
      channel,
      TagServiceService.createTag,
      { spaceId: decodeId("Space", spaceId)!, name, description: "d" },
      {
        credential: keys.caller(admin),
        requestId: "forwarded",
        forwardedKey: { key, fingerprint: fingerprintOf(tagBody(name)) },
      },
    );
  } finally {
    channel.close();
  }
}

beforeAll(async () => {
  const infra = testInfra();
  db = await createTestDatabase(infra);
  sql = new pg.Pool({ connectionString: db.url, max: 3 });
  const stream = uniqueName("IDEM");
  const root = uniqueName("idem");
  const identityPort = await freePort();
  identityEnv = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    IDENTITY_GRPC_PORT: String(identityPort),
    IDENTITY_PROBE_PORT: "0",
    ...keys.env("identity"),
    ARGUS_API_KEY_PEPPER: "q".repeat(32),
    ARGUS_INIT_API_KEY: apiKey,
    ARGUS_EVENTS_STREAM: stream,
    ARGUS_SUBJECT_ROOT: root,
  };
  identity = await startIdentity(identityEnv, logger, { clock });
  const catalogPort = await freePort();
  catalog = await startCatalog(
    {
      DATABASE_URL: db.url,
      NATS_URL: infra.natsUrl,
      CATALOG_GRPC_PORT: String(catalogPort),
      CATALOG_PROBE_PORT: "0",
      ...keys.env("catalog"),
      ARGUS_SECRETS_KEY: "s".repeat(32),
      IDENTITY_GRPC_URL: `127.0.0.1:${identityPort}`,
      ARGUS_EVENTS_STREAM: stream,
      ARGUS_SUBJECT_ROOT: root,
    },
    logger,
    { clock },
  );
  gatewayEnv = {
    ...keys.env("gateway"),
    ARGUS_CURSOR_SECRET: "c".repeat(32),
    ARGUS_HTTP_PORT: "0",
    ARGUS_OTLP_GRPC_PORT: "0",
    IDENTITY_GRPC_URL: `127.0.0.1:${identityPort}`,
    CATALOG_GRPC_URL: `127.0.0.1:${catalogPort}`,
    ARGUS_IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
  };
  await startTheGateway();
  const spaces = await fetch(`${baseUrl}/v2/spaces`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  spaceId = ((await spaces.json()) as { spaces: { id: string }[] }).spaces[0]!.id;
  const channel = createChannel(`127.0.0.1:${identityPort}`);
  admin = (
    await callUnary(
      channel,
      IdentityServiceService.authenticate,
      { apiKey },
      { credential: keys.service("gateway"), requestId: "t" },
    )
  ).principal!;
  channel.close();
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await catalog?.stop();
  await identity?.stop();
  await sql?.end();
  await new Promise((r) => setTimeout(r, 200));
  await db?.drop();
});

describe("the same key with the same request", () => {
  it("replays the first answer, status and body, without a second effect", async () => {
    clock.set(PINNED);
    const name = uniqueName("replay");
    const first = await post("/v2/tags", tagBody(name), { key: "k-replay" });
    expect(first.status).toBe(201);
    expect(first.replayed).toBe(false);
    const again = await post("/v2/tags", tagBody(name), { key: "k-replay" });
    expect(again).toMatchObject({ status: 201, replayed: true, text: first.text });
    // Key order and spacing are not part of the request.
    const reordered = await post(
      "/v2/tags",
      { description: "d", space_id: spaceId, name },
      { key: "k-replay" },
    );
    expect(reordered).toMatchObject({ status: 201, replayed: true, text: first.text });
    expect(await created(name)).toBe(1);
  });

  it("replays an error answer too: a 409 is not kept, a 404 is", async () => {
    clock.set(PINNED);
    const name = uniqueName("taken");
    expect((await post("/v2/tags", tagBody(name))).status).toBe(201);
    // The name is taken: 409 is a conflict of the moment, so the key is forgotten.
    const conflict = await post("/v2/tags", tagBody(name), { key: "k-conflict" });
    expect(conflict.status).toBe(409);
    expect((await post("/v2/tags", tagBody(name), { key: "k-conflict" })).replayed).toBe(false);
    // A space that does not exist: 404, kept and replayed with its first request id.
    const nowhere = { name: uniqueName("t"), space_id: encodeId("Space", randomUUID()) };
    const missing = await post("/v2/tags", nowhere, { key: "k-missing" });
    expect(missing.status).toBe(404);
    const replayed = await post("/v2/tags", nowhere, { key: "k-missing" });
    expect(replayed).toMatchObject({ status: 404, replayed: true, text: missing.text });
  });
});

describe("an answer carrying a secret shown once", () => {
  it("is replayed to its caller, and no table holds a readable copy of it", async () => {
    clock.set(PINNED);
    const first = await post(
      "/v2/api-keys",
      { key_type: "USER", name: "once" },
      { key: "k-secret" },
    );
    expect(first.status).toBe(201);
    const raw = String(first.body.key);
    const again = await post(
      "/v2/api-keys",
      { key_type: "USER", name: "once" },
      { key: "k-secret" },
    );
    expect(again).toMatchObject({ status: 201, replayed: true, text: first.text });
    // The gateway's copy is sealed; identity, which applied it, kept none.
    const kept = await sql.query<{ body: Buffer }>(
      "select body from identity.idempotency_keys where key = 'k-secret'",
    );
    expect(kept.rows[0]!.body.toString()).toMatch(/^v1\./);
    expect(kept.rows[0]!.body.toString()).not.toContain(raw);
    const applied = await sql.query<{ reply: Buffer | null }>(
      "select reply from identity.applied_requests where key = 'k-secret'",
    );
    expect(applied.rows).toEqual([{ reply: null }]);
  });
});

describe("the same key with another request", () => {
  it("is 422 and applies nothing", async () => {
    clock.set(PINNED);
    const name = uniqueName("first");
    expect((await post("/v2/tags", tagBody(name), { key: "k-other" })).status).toBe(201);
    const other = uniqueName("second");
    const res = await post("/v2/tags", tagBody(other), { key: "k-other" });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/different request/);
    expect(await created(other)).toBe(0);
  });
});

describe("the key's limits", () => {
  it("1 and 255 printable ASCII characters are keys; none, 256 or a control character are 400", async () => {
    clock.set(PINNED);
    for (const key of [
      "x",
      "~".repeat(255),
      "a key with spaces and !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}",
    ]) {
      const name = uniqueName("edge");
      const res = await post("/v2/tags", tagBody(name), { key });
      expect([key.length, res.status]).toEqual([key.length, 201]);
      expect((await post("/v2/tags", tagBody(name), { key })).replayed).toBe(true);
    }
    for (const key of ["", "k".repeat(256), "tab\there", "caf\u00e9"]) {
      const name = uniqueName("bad");
      const res = await post("/v2/tags", tagBody(name), { key });
      expect([JSON.stringify(key), res.status]).toEqual([JSON.stringify(key), 400]);
      expect(await created(name)).toBe(0);
    }
  });
});

describe("keys are the caller's", () => {
  it("another caller's equal key is another key; another key of the same user is the same", async () => {
    clock.set(PINNED);
    const orgs = await fetch(`${baseUrl}/v2/organizations`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const orgId = ((await orgs.json()) as { organizations: { id: string }[] }).organizations[0]!.id;
    const service = await post("/v2/api-keys", {
      key_type: "SERVICE",
      name: "bot",
      organizations: [{ org_id: orgId, spaces: [{ space_id: spaceId }] }],
    });
    expect(service.status).toBe(201);
    const mine = await post("/v2/api-keys", { key_type: "USER", name: "second" });
    expect(mine.status).toBe(201);

    const name = uniqueName("scoped");
    const a = await post("/v2/tags", tagBody(`${name}-a`), { key: "k-scope" });
    expect(a.status).toBe(201);
    // The service account's key of the same value: its own request, its own tag.
    const b = await post("/v2/tags", tagBody(`${name}-b`), {
      key: "k-scope",
      bearer: String(service.body.key),
    });
    expect(b).toMatchObject({ status: 201, replayed: false });
    // The admin's second key: the same caller, so the same key.
    const c = await post("/v2/tags", tagBody(`${name}-a`), {
      key: "k-scope",
      bearer: String(mine.body.key),
    });
    expect(c).toMatchObject({ status: 201, replayed: true, text: a.text });
  });
});

describe("a request still in flight under the key", () => {
  it("is 409 for a second request; the first then completes and is replayed", async () => {
    clock.set(PINNED);
    const name = uniqueName("held");
    // Hold the first request in its command's transaction: its insert into the tags table
    // waits for this lock.
    const holder = await sql.connect();
    try {
      await holder.query("begin");
      await holder.query("lock table catalog.tags in exclusive mode");
      const first = post("/v2/tags", tagBody(name), { key: "k-held" });
      await waitFor(async () => {
        const { rows } = await sql.query(
          "select 1 from identity.idempotency_keys where key = 'k-held' and state = 'in_flight'",
        );
        return rows.length === 1;
      });
      const second = await post("/v2/tags", tagBody(name), { key: "k-held" });
      expect(second.status).toBe(409);
      expect(second.body.detail).toMatch(/still in flight/);
      // "Retry later", said the way clients act on: a retry with the same key may succeed.
      expect(second.retryAfter).toBe("1");
      await holder.query("commit");
      const answered = await first;
      expect(answered.status).toBe(201);
      const third = await post("/v2/tags", tagBody(name), { key: "k-held" });
      expect(third).toMatchObject({ status: 201, replayed: true, text: answered.text });
    } finally {
      holder.release();
    }
    expect(await created(name)).toBe(1);
  });

  it("10 concurrent identical requests: one effect, the others replay or 409, no 5xx", async () => {
    clock.set(PINNED);
    const name = uniqueName("race");
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post("/v2/tags", tagBody(name), { key: "k-race" })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(answers.filter((a) => a.status === 201 && !a.replayed)).toHaveLength(1);
    const firstText = answers.find((a) => a.status === 201)!.text;
    for (const a of answers.filter((x) => x.status === 201)) expect(a.text).toBe(firstText);
    expect(await created(name)).toBe(1);
  });
});

describe("keys outlive processes and expire after 24 hours", () => {
  it("a restarted identity and gateway still replay the answer", async () => {
    clock.set(PINNED);
    const name = uniqueName("restart");
    const first = await post("/v2/tags", tagBody(name), { key: "k-restart" });
    expect(first.status).toBe(201);
    await gateway.stop();
    await identity.stop();
    identity = await startIdentity(identityEnv, logger, { clock });
    await startTheGateway();
    const again = await post("/v2/tags", tagBody(name), { key: "k-restart" });
    expect(again).toMatchObject({ status: 201, replayed: true, text: first.text });
    expect(await created(name)).toBe(1);
  });

  it("replays until 24 hours after the first request, then applies the request again", async () => {
    clock.set(PINNED);
    const name = uniqueName("expiry");
    const first = await post("/v2/tags", tagBody(name), { key: "k-expiry" });
    expect(first.status).toBe(201);
    // The tag goes, so that applying the request again can succeed.
    const del = await fetch(`${baseUrl}/v2/tags/${String(first.body.id)}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(del.status).toBe(204);
    clock.set(new Date(PINNED.getTime() + DAY_MS - 1));
    const replayed = await post("/v2/tags", tagBody(name), { key: "k-expiry" });
    expect(replayed).toMatchObject({ status: 201, replayed: true, text: first.text });
    clock.set(new Date(PINNED.getTime() + DAY_MS));
    const fresh = await post("/v2/tags", tagBody(name), { key: "k-expiry" });
    expect(fresh).toMatchObject({ status: 201, replayed: false });
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(await created(name)).toBe(2);
    clock.set(PINNED);
  });
});

describe("an answer lost after the effect committed", () => {
  /**
   * What a gateway killed mid-request leaves: identity holds the key in flight under that
   * gateway's lease, and the catalog applied the request it forwarded (as the catalog's own
   * gRPC call with the forwarded key does here), with or without its answer stored.
   */
  async function appliedButUnanswered(key: string, name: string) {
    const identityChannel = createChannel(`127.0.0.1:${identityEnv.IDENTITY_GRPC_PORT}`);
    const begun = await callUnary(
      identityChannel,
      IdempotencyServiceService.begin,
      {
        scope: idempotencyScope(admin),
        key,
        fingerprint: fingerprintOf(tagBody(name)),
        leaseMs: BigInt(LEASE_MS),
      },
      { credential: keys.service("gateway"), requestId: "dead-gateway" },
    );
    identityChannel.close();
    expect(begun.attempt).not.toBe("");
    return forwardCreateTag(key, name);
  }

  it("a retry after the dead gateway's lease gets the answer the catalog stored, and nothing twice", async () => {
    clock.set(PINNED);
    const name = uniqueName("lost");
    const tag = await appliedButUnanswered("k-lost", name);
    // Within the dead gateway's lease the request is in flight.
    expect((await post("/v2/tags", tagBody(name), { key: "k-lost" })).status).toBe(409);
    clock.advance(LEASE_MS);
    const retried = await post("/v2/tags", tagBody(name), { key: "k-lost" });
    expect(retried.status).toBe(201);
    expect(Buffer.from(String(retried.body.id), "base64").toString()).toBe(`Tag:${tag.id}`);
    expect(await created(name)).toBe(1);
    // And it is kept now: replayed by identity.
    expect((await post("/v2/tags", tagBody(name), { key: "k-lost" })).replayed).toBe(true);
    clock.set(PINNED);
  });

  it("applied but its answer never stored (killed in between): 409 saying so, and nothing twice", async () => {
    clock.set(PINNED);
    const name = uniqueName("unstored");
    await appliedButUnanswered("k-unstored", name);
    await sql.query("update catalog.applied_requests set reply = null where key = 'k-unstored'");
    clock.advance(LEASE_MS);
    for (let i = 0; i < 2; i++) {
      const retried = await post("/v2/tags", tagBody(name), { key: "k-unstored" });
      expect(retried.status).toBe(409);
      expect(retried.body.detail).toMatch(/applied, but its answer was lost/);
    }
    expect(await created(name)).toBe(1);
    clock.set(PINNED);
  });
});

describe("a request forwarded again while its first execution still runs", () => {
  it("waits for the first execution's answer and applies nothing twice", async () => {
    clock.set(PINNED);
    const name = uniqueName("overlap");
    const holder = await sql.connect();
    let answers: unknown[];
    try {
      await holder.query("begin");
      await holder.query("lock table catalog.tags in exclusive mode");
      const both = Promise.all([
        forwardCreateTag("k-overlap", name),
        new Promise((r) => setTimeout(r, 100)).then(() => forwardCreateTag("k-overlap", name)),
      ]);
      await new Promise((r) => setTimeout(r, 400));
      await holder.query("commit");
      answers = await both;
    } finally {
      holder.release();
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(await created(name)).toBe(1);
  });
});

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
