import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api } from "./support.ts";

// Low limits so the conventions at their edges are cheap to reach.
const RATE = 2;
const BURST = 5;
const MAX_BODY = 2048;
// Operators choose the initial key freely: spaces and symbols must work end to end.
const secondKey = "second key: with spaces & symbols !#$%^*(){}[]<>~";

let api: Api;

beforeAll(async () => {
  api = await startApi({
    env: {
      ARGUS_RATE_LIMIT_PER_SECOND: String(RATE),
      ARGUS_RATE_LIMIT_BURST: String(BURST),
      ARGUS_MAX_BODY_BYTES: String(MAX_BODY),
    },
  });
  // Headless initialization with another key adds that key for the same admin.
  await api.stack.restart("identity", { ARGUS_INIT_API_KEY: secondKey });
});
afterAll(() => api?.stop());

describe("operational routes", () => {
  it("serves /healthz, /readyz, the OpenAPI document and its docs page without a key", async () => {
    for (const path of ["/healthz", "/readyz"])
      expect((await fetch(api.stack.baseUrl + path)).status).toBe(200);
    const spec = await fetch(`${api.stack.baseUrl}/v2/spec.yaml`);
    expect(spec.status).toBe(200);
    expect(await spec.text()).toMatch(/^openapi: 3\.1/);
    const docs = await fetch(`${api.stack.baseUrl}/v2/docs`);
    expect(docs.headers.get("content-type")).toMatch(/text\/html/);
    expect(await docs.text()).toContain("create_space");
  });
});

describe("authentication", () => {
  it("no key is 401 with a Problem body", async () => {
    const res = await api.req("GET", "/v2/spaces", { key: null });
    expectProblem(res, 401, "authentication-required");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("an unknown key is 401, a malformed header is 401", async () => {
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: `ak-unknown-${"x".repeat(40)}` }),
      401,
      "authentication-required",
    );
    expectProblem(
      await api.req("GET", "/v2/spaces", { key: null, headers: { authorization: "Basic abc" } }),
      401,
      "authentication-required",
    );
  });
});

describe("request conventions", () => {
  it("an unknown route is a 404 Problem; a known path with another method is 405", async () => {
    expectProblem(
      await api.req("GET", "/v2/nothing-here", { key: secondKey }),
      404,
      "resource-not-found",
    );
    const res = await api.req("DELETE", "/v2/spaces", { key: secondKey });
    expectProblem(res, 405, "method-not-allowed");
    expect(res.headers.get("allow")).toMatch(/GET/);
  });

  it("malformed JSON is 400, a non-JSON content type is 415, an oversized body is 413", async () => {
    expectProblem(
      await api.req("POST", "/v2/spaces", { key: secondKey, body: "{not json" }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/spaces", {
        key: secondKey,
        body: "name=x",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "unsupported-media-type",
    );
    expectProblem(
      await api.req("POST", "/v2/spaces", { key: secondKey, body: { name: "x".repeat(MAX_BODY) } }),
      413,
      "payload-too-large",
    );
  });

  it("echoes a sane X-Request-Id and uses it in Problems", async () => {
    const res = await api.req("GET", "/v2/nope", {
      key: secondKey,
      headers: { "x-request-id": "req-12345" },
    });
    expect(res.headers.get("x-request-id")).toBe("req-12345");
    expect(res.body.request_id).toBe("req-12345");
  });
});

describe("rate limiting per API key", () => {
  it("answers 429 with an integer Retry-After once the burst is spent, without touching another key", async () => {
    let limited: Awaited<ReturnType<Api["req"]>> | undefined;
    for (let i = 0; i < BURST + 5 && !limited; i++) {
      const res = await api.req("GET", "/v2/spaces?limit=1");
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expectProblem(limited!, 429, "rate-limit-exceeded");
    const retryAfter = limited!.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(0);
    expect((await api.req("GET", "/v2/spaces?limit=1", { key: secondKey })).status).toBe(200);
  });
});
