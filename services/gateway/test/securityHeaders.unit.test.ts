import { createHash } from "node:crypto";
import { createConnection } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
