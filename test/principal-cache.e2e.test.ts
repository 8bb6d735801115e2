import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { gunzipSync } from "node:zlib";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, listenLocal } from "@argus/testkit";
import { identityDb, seedKey } from "./identity-fixtures.ts";
import {
  cacheOutcome,
  cuttableProxy,
  eventually,
  get,
  spawnGateway,
  untilCached,
  type ExtraGateway,
} from "./principal-cache-support.ts";
import { startApi, type Api } from "./support.ts";

// Issue 8, item 2: each gateway caches principals; a change to authorization returns only once
// every gateway confirmed it dropped them, or its lease on the cache ran out
// (docs/architecture.md, "Principal cache and invalidation"). identity's default lease: 3 s.
const LEASE_MS = 3_000;
// What a change may take beyond one lease when a gateway cannot confirm: the command itself,
// the lease read, and timers on a loaded 2-core machine.
const MARGIN_MS = 1_500;
// The gRPC instrumentation names a call's spans `grpc.<service>/<method>`.
const AUTHENTICATE = "grpc.argus.identity.v1.IdentityService/Authenticate";

/** A minimal OTLP/HTTP (JSON) receiver: every span the stack exports, with its service. */
interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; traceId: string }[] }[];
  }[];
}
const spans: ExportedSpan[] = [];
let collector: Server;
let api: Api;
let db: pg.Pool;
const main: { url: string; log: string[] } = { url: "", log: [] };
const extra: ExtraGateway[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        let raw = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
        const body = JSON.parse(raw.toString("utf8")) as OtlpTraces;
        for (const rs of body.resourceSpans ?? []) {
          const service =
            rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({ service, name: s.name, traceId: s.traceId });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const port = await listenLocal(collector);
  api = await startApi({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    },
    onLine: (line) => {
      if (line.startsWith("[gateway] ")) main.log.push(line.slice("[gateway] ".length));
    },
  });
  main.url = api.stack.baseUrl;
  db = identityDb(api);
}, 180_000);

afterAll(async () => {
  for (const g of extra) await g.process.stop();
  await db?.end();
  await api?.stop();
  await new Promise((resolve) => collector?.close(resolve));
});

async function newKey(): Promise<{ id: string; key: string }> {
  const res = await api.req("POST", "/v2/api-keys", {
    body: { key_type: "USER", name: `k-${randomBytes(4).toString("hex")}` },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, key: res.body.key };
}

/** Revokes through the stack's gateway; the time until its 204 arrived. */
async function revoke(id: string): Promise<number> {
  const started = performance.now();
  const res = await api.req("PUT", `/v2/api-keys/${id}/revoke`);
  const ms = performance.now() - started;
  expect(res.status).toBe(204);
  return ms;
}

const traceparent = (traceId: string) => `00-${traceId}-${randomBytes(8).toString("hex")}-01`;

describe("the principal cache", () => {
  it("answers a second request with the same key without asking identity", async () => {
    await untilCached(main, api.stack.apiKey); // the gateway holds its lease
    const { key } = await newKey();
    const [t1, t2] = [randomBytes(16).toString("hex"), randomBytes(16).toString("hex")];
    const first = await get(main.url, key, "/v2/spaces", { traceparent: traceparent(t1) });
    const second = await get(main.url, key, "/v2/spaces", { traceparent: traceparent(t2) });
    expect([first.status, second.status]).toEqual([200, 200]);
    await eventually(() => cacheOutcome(main.log, second.requestId) !== undefined);
    expect(cacheOutcome(main.log, first.requestId)).toBe("miss");
    expect(cacheOutcome(main.log, second.requestId)).toBe("hit");

    // identity's own telemetry: the first request's trace has its Authenticate span; once the
    // second's gateway span is exported (same batching), its trace has none on either side.
    const exported = (trace: string, service: string, name?: string) =>
      spans.some((s) => s.traceId === trace && s.service === service && (!name || s.name === name));
    await eventually(
      () => exported(t1, "identity", AUTHENTICATE) && exported(t2, "gateway"),
      30_000,
    );
    expect(spans.filter((s) => s.traceId === t2 && s.name === AUTHENTICATE)).toEqual([]);
  }, 60_000);

  it("honours the key's expiry from the cache, to the second", async () => {
    await untilCached(main, api.stack.apiKey);
    const admin = (await api.req("GET", "/v2/users")).body.users[0].id as string;
    const expiresAt = Date.now() + 6_000;
    const key = await seedKey(api, db, admin, { expiresAt: new Date(expiresAt) });
    await untilCached(main, key);
    // Cached for a minute, yet the key expires in seconds: served from the cache until then...
    let last = await get(main.url, key);
    while (Date.now() < expiresAt - 1_000) {
      last = await get(main.url, key);
      expect(last.status).toBe(200);
      await new Promise((res) => setTimeout(res, 200));
    }
    await eventually(() => cacheOutcome(main.log, last.requestId) !== undefined);
    expect(cacheOutcome(main.log, last.requestId)).toBe("hit");
    // ...and refused from its expiry on.
    await new Promise((res) => setTimeout(res, expiresAt - Date.now() + 20));
    const expired = await get(main.url, key);
    expect(expired.status).toBe(401);
    expect(Date.now() - expiresAt).toBeLessThan(1_000);
  }, 60_000);

  it("a gateway starts and serves, uncached, when NATS cannot be reached", async () => {
    const closed = await freePort();
    const g = await spawnGateway(api, "gateway-no-nats", {
      NATS_URL: `nats://127.0.0.1:${closed}`,
    });
    extra.push(g);
    const answers = [await get(g.url, api.stack.apiKey), await get(g.url, api.stack.apiKey)];
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    await eventually(() => cacheOutcome(g.log, answers[1]!.requestId) !== undefined);
    expect(answers.map((a) => cacheOutcome(g.log, a.requestId))).toEqual(["bypass", "bypass"]);
    // It holds no lease, so no change waits for it.
    const { id } = await newKey();
    expect(await revoke(id)).toBeLessThan(1_000);
  }, 60_000);
});

describe("confirmed invalidation when a gateway cannot confirm", () => {
  it("a gateway cut off from NATS is waited for at most its lease, then serves nothing stale", async () => {
    const proxy = await cuttableProxy(api.stack.nats.url);
    const g = await spawnGateway(api, "gateway-cut", { NATS_URL: proxy.url });
    extra.push(g);
    try {
      // Normal: every gateway confirms at once.
      const normal = await newKey();
      await untilCached(g, normal.key);
      await untilCached(main, normal.key);
      const normalMs = await revoke(normal.id);
      expect((await get(g.url, normal.key)).status).toBe(401);

      const during = await newKey();
      const later = await newKey();
      await untilCached(g, during.key);
      await untilCached(g, later.key);
      proxy.cut();
      // The revoke waits for the cut-off gateway's lease (it cannot confirm)...
      const outageMs = await revoke(during.id);
      expect(outageMs).toBeGreaterThan(LEASE_MS / 6);
      expect(outageMs).toBeLessThan(LEASE_MS + MARGIN_MS);
      // ...after which it serves that key nowhere, nor anything else from its cache.
      expect((await get(g.url, during.key)).status).toBe(401);
      const uncached = await get(g.url, later.key);
      expect(uncached.status).toBe(200);
      await eventually(() => cacheOutcome(g.log, uncached.requestId) !== undefined);
      expect(cacheOutcome(g.log, uncached.requestId)).toBe("bypass");
      // It stopped renewing its lease once cut off: the next change does not wait for it.
      const nextMs = await revoke(later.id);
      expect(nextMs).toBeLessThan(1_000);
      expect((await get(g.url, later.key)).status).toBe(401);

      // Back on NATS: it renews, caches again, and what was revoked stays revoked.
      proxy.restore();
      await untilCached(g, api.stack.apiKey);
      expect((await get(g.url, during.key)).status).toBe(401);
      expect((await get(g.url, later.key)).status).toBe(401);
      console.log(
        `revoke latency: ${normalMs.toFixed(0)} ms with every gateway confirming; ` +
          `${outageMs.toFixed(0)} ms with one cut off from NATS (lease ${LEASE_MS} ms); ` +
          `${nextMs.toFixed(0)} ms once its lease ran out`,
      );
    } finally {
      // Stopped (releasing its lease) before its NATS goes away for good.
      await g.process.stop();
      await proxy.close();
    }
  }, 120_000);

  it("a gateway that stops releases its lease: no change waits for it", async () => {
    const g = await spawnGateway(api, "gateway-stopped");
    const { id, key } = await newKey();
    await untilCached(g, key);
    await g.process.stop();
    // Its lease had about 2/3 of a lease left; released, nothing waits for it.
    expect(await revoke(id)).toBeLessThan(LEASE_MS / 3);
  }, 60_000);

  it("a gateway frozen past its lease (SIGSTOP) does not serve its cache when it wakes", async () => {
    const g = await spawnGateway(api, "gateway-frozen");
    extra.push(g);
    const { id, key } = await newKey();
    await untilCached(g, key);
    process.kill(g.process.pid, "SIGSTOP");
    let frozenMs: number;
    try {
      frozenMs = await revoke(id);
    } finally {
      process.kill(g.process.pid, "SIGCONT");
    }
    // It renews every lease/3, so its lease had about 2/3 of a lease left when it froze (a
    // gateway without a lease is not waited for: ~20 ms).
    expect(frozenMs).toBeGreaterThan(LEASE_MS / 6);
    expect(frozenMs).toBeLessThan(LEASE_MS + MARGIN_MS);
    // Awake, its lease has run out on its own clock: identity is asked, and says no.
    const woken = await Promise.all([get(g.url, key), get(g.url, key), get(g.url, key)]);
    expect(woken.map((r) => r.status)).toEqual([401, 401, 401]);
    // And it is a working gateway again.
    await untilCached(g, api.stack.apiKey);
    console.log(`revoke latency with one gateway frozen: ${frozenMs.toFixed(0)} ms`);
  }, 120_000);
});
