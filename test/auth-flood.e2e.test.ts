import { randomBytes } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { argusKeyOf } from "../services/identity/src/apiKeys/apiKeyFormat.ts";
import { expectProblem, startApi, type Api } from "./support.ts";

// Issue 8, item 3: malformed `ak-argus-` keys are refused by the gateway itself, and an address
// that keeps failing to authenticate is throttled, so a flood costs identity nothing.
const RATE = 1;
const BURST = 10;
const FLOOD = 60;
// The gateway listens on 127.0.0.1 and trusts no forwarding header: a client bound to
// 127.0.0.2 is another address.
const FLOODER = "127.0.0.2";
// The gRPC instrumentation names a call's spans `grpc.<service>/<method>`.
const AUTHENTICATE = "grpc.argus.identity.v1.IdentityService/Authenticate";

/** A minimal OTLP/HTTP (JSON) receiver: every span the stack exports, with its service. */
interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
}
const spans: ExportedSpan[] = [];
let collector: Server;
let api: Api;
const gatewayLog: string[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        let raw = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
        collect(JSON.parse(raw.toString("utf8")) as OtlpTraces);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const port = await listenLocal(collector);
  api = await startApi({
    env: {
      ARGUS_UNAUTH_RATE_LIMIT_PER_SECOND: String(RATE),
      ARGUS_UNAUTH_RATE_LIMIT_BURST: String(BURST),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    },
    onLine: (line) => {
      if (line.startsWith("[gateway] ")) gatewayLog.push(line.slice("[gateway] ".length));
    },
  });
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await new Promise((resolve) => collector?.close(resolve));
});

interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; traceId: string }[] }[];
  }[];
}

function collect(body: OtlpTraces): void {
  for (const rs of body.resourceSpans ?? []) {
    const service =
      rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) spans.push({ service, name: s.name, traceId: s.traceId });
  }
}

const traceId = () => randomBytes(16).toString("hex");
const traceparent = (id: string) => `00-${id}-${randomBytes(8).toString("hex")}-01`;

/** GET /v2/spaces from `from` with `key`, in the trace `trace`. */
function getFrom(
  from: string,
  key: string,
  trace: string,
): Promise<{ status: number; retryAfter?: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.stack.baseUrl}/v2/spaces`,
      {
        localAddress: from,
        agent: false,
        headers: { authorization: `Bearer ${key}`, traceparent: traceparent(trace) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.headers["retry-after"] ? { retryAfter: res.headers["retry-after"] } : {}),
            type: String((JSON.parse(text) as { type?: unknown }).type),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** A key that claims the Argus format but whose checksum does not match. */
function malformedArgusKey(): string {
  const good = argusKeyOf(
    randomBytes(40)
      .toString("base64")
      .replace(/[^0-9A-Za-z]/g, "x")
      .slice(0, 40),
  );
  return good.slice(0, -1) + (good.endsWith("0") ? "1" : "0");
}

describe("a flood of malformed ak-argus- keys from one address", () => {
  it("gets 429s, never reaches identity, and the admin key keeps working", async () => {
    const floodTraces: string[] = [];
    const answers = [];
    for (let i = 0; i < FLOOD; i++) {
      const trace = traceId();
      floodTraces.push(trace);
      answers.push(await getFrom(FLOODER, malformedArgusKey(), trace));
    }
    const unauthorized = answers.filter((a) => a.status === 401);
    const throttled = answers.filter((a) => a.status === 429);
    expect(unauthorized.length + throttled.length).toBe(FLOOD);
    for (const a of unauthorized) expect(a.type).toMatch(/#authentication-required$/);
    for (const a of throttled) {
      expect(a.type).toMatch(/#rate-limit-exceeded$/);
      expect(a.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    // The burst, plus what refilled while the flood ran.
    expect(unauthorized.length).toBeGreaterThanOrEqual(BURST);
    expect(throttled.length).toBeGreaterThanOrEqual(FLOOD - BURST - 10);

    // The admin key, from the gateway's own loopback address, is unaffected.
    const adminTrace = traceId();
    const admin = await getFrom("127.0.0.1", api.stack.apiKey, adminTrace);
    expect(admin.status).toBe(200);
    const listed = await api.req("GET", "/v2/spaces");
    expect(listed.status).toBe(200);
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: null }),
      401,
      "authentication-required",
    );

    // Each process exports its spans in batches: once the admin request's spans are in from
    // both the gateway and identity, the flood's (sent before it) would be too.
    const exported = (trace: string, service: string, name?: string) =>
      spans.some((s) => s.traceId === trace && s.service === service && (!name || s.name === name));
    const adminExported = () =>
      exported(adminTrace, "identity", AUTHENTICATE) && exported(adminTrace, "gateway");
    for (let i = 0; i < 300 && !adminExported(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(exported(adminTrace, "identity", AUTHENTICATE), "identity's Authenticate span").toBe(
      true,
    );
    expect(exported(adminTrace, "gateway"), "the gateway's span of the admin request").toBe(true);
    const flood = new Set(floodTraces);
    // The flood's traces were exported (the gateway's server spans)...
    expect(spans.some((s) => flood.has(s.traceId) && s.service === "gateway")).toBe(true);
    // ...and none of them has an Authenticate call, on either side of it.
    expect(spans.filter((s) => flood.has(s.traceId) && s.name === AUTHENTICATE)).toEqual([]);

    // The gateway's access log says why each flood request ended where it did.
    const outcomes = gatewayLog
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg?: string; auth?: string; status?: number })
      .filter((l) => l.msg === "request" && l.auth !== undefined);
    expect(outcomes.filter((l) => l.auth === "refused_locally")).toHaveLength(unauthorized.length);
    expect(outcomes.filter((l) => l.auth === "throttled")).toHaveLength(throttled.length);
    expect(outcomes.filter((l) => l.auth === "ok").length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
