import { createHash } from "node:crypto";
import { createConnection } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENT_HEADERS, SECURITY_HEADERS } from "../src/http/securityHeaders.ts";
import { STYLE } from "../src/openapi/docsPage.ts";
import { startGateway, type TestGateway } from "./startGateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({
    create_api_key: async () => ({
      status: 201,
      body: { id: "k", name: "n", key: "ak-argus-secret-shown-once" },
    }),
  });
});
afterAll(() => gw?.close());

const auth = { authorization: "Bearer ak-alice", "content-type": "application/json" };

describe("HTTP hardening of the gateway", () => {
  it("every response says nosniff: API answers, Problems, the document, probes", async () => {
    for (const [path, init] of [
      ["/v2/spaces/nope", { headers: auth }],
      ["/v2/spaces", {}],
      ["/v2/spec.yaml", {}],
      ["/healthz", {}],
      ["/nowhere", {}],
    ] as const) {
      const res = await fetch(gw.url + path, init);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });

  it("an API answer carries OWASP's REST set, its exact type and length, and no browser-page headers", async () => {
    const res = await fetch(`${gw.url}/v2/api-keys`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "n", key_type: "USER" }),
    });
    const text = await res.text();
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(Object.fromEntries(SECURITY_HEADERS.map(([k]) => [k, res.headers.get(k)]))).toEqual({
      "Content-Security-Policy": "frame-ancestors 'none'",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
    });
    for (const [name] of DOCUMENT_HEADERS) expect(res.headers.get(name), name).toBeNull();
    for (const absent of ["x-powered-by", "strict-transport-security", "etag"])
      expect(res.headers.get(absent), absent).toBeNull();
    const problem = await fetch(`${gw.url}/v2/spaces`);
    expect(problem.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(problem.headers.get("x-frame-options")).toBe("DENY");
    expect(problem.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
  });

  it("the docs page runs no script, is never framed, and allows only its own style", async () => {
    const res = await fetch(`${gw.url}/v2/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const hash = createHash("sha256").update(STYLE).digest("base64");
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(await res.text()).toContain(`<style>${STYLE}</style>`);
    // An HTML document: helmet's headers for one, besides the API's.
    expect(Object.fromEntries(DOCUMENT_HEADERS.map(([k]) => [k, res.headers.get(k)]))).toEqual({
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Resource-Policy": "same-origin",
      "Origin-Agent-Cluster": "?1",
      "Referrer-Policy": "no-referrer",
      "X-DNS-Prefetch-Control": "off",
      "X-Download-Options": "noopen",
      "X-Permitted-Cross-Domain-Policies": "none",
      "X-XSS-Protection": "0",
    });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("answers carrying a secret are never cached (and API answers in general)", async () => {
    const res = await fetch(`${gw.url}/v2/api-keys`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "n", key_type: "USER" }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(
      (await fetch(`${gw.url}/v2/spaces/nope`, { headers: auth })).headers.get("cache-control"),
    ).toBe("no-store");
  });

  it("a refusal by the HTTP parser carries nosniff too", async () => {
    const raw = await new Promise<string>((resolve) => {
      const socket = createConnection(new URL(gw.url).port as unknown as number, "127.0.0.1");
      let out = "";
      socket.on("data", (d) => (out += d.toString()));
      socket.on("end", () => resolve(out));
      socket.write("GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw.toLowerCase()).toContain("x-content-type-options: nosniff");
  });
});
