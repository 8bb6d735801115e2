/**
 * SSRF through the API, on a stack where loopback destinations are not allowed (the default):
 * about 30 spellings of a loopback, private or special-purpose address are refused when a
 * webhook is created or updated, and a name that resolves to loopback is refused at the moment
 * of dialling — a loopback canary listening on the port every URL names sees 0 connections.
 * (Names resolving anywhere, and redirects, are also covered against the shared guard itself:
 * packages/platform/test/outbound.unit.test.ts.)
 */
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api } from "./support.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";

let api: Api;
let canary: Receiver;
let orgId: string;
let port: string;

beforeAll(async () => {
  api = await startApi();
  canary = await startReceiver();
  port = new URL(canary.url).port;
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
});
afterAll(async () => {
  await canary?.close();
  await api?.stop();
});

const hosts = [
  "127.0.0.1",
  "2130706433",
  "0177.0.0.1",
  "0x7f.0.0.1",
  "0x7f000001",
  "017700000001",
  "127.1",
  "127.0.1",
  "[::1]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[0:0:0:0:0:ffff:127.0.0.1]",
  "[64:ff9b::7f00:1]",
  "[2002:7f00:1::]",
  "0.0.0.0",
  "0",
  "[::]",
  "localhost",
  "LOCALHOST.",
  "hooks.localhost",
  "10.0.0.1",
  "172.16.5.4",
  "192.168.1.1",
  "169.254.169.254",
  "[::ffff:169.254.169.254]",
  "100.64.0.1",
  "224.0.0.1",
  "255.255.255.255",
  "198.18.0.1",
  "[fd00::1]",
  "[fe80::1]",
];

describe("destinations Argus may not reach", () => {
  it(`refuses ${hosts.length} spellings at create and update, and connects to none`, async () => {
    const ok = await api.req("POST", "/v2/webhooks", {
      body: { organization_id: orgId, name: "public", url: "https://example.com/hook" },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    for (const host of hosts) {
      const url = `https://${host}:${port}/hook`;
      const created = await api.req("POST", "/v2/webhooks", {
        body: { organization_id: orgId, name: `h-${host}`, url },
      });
      expectProblem(created, 400, "invalid-request");
      expectProblem(
        await api.req("PATCH", `/v2/webhooks/${ok.body.id}`, { body: { url } }),
        400,
        "invalid-request",
      );
    }
    // Plain http is refused even to a public name.
    expectProblem(
      await api.req("POST", "/v2/webhooks", {
        body: { organization_id: orgId, name: "plain", url: "http://example.com/hook" },
      }),
      400,
      "invalid-request",
    );
    expect(canary.connections).toBe(0);
  });

  it("a name that resolves to loopback passes the create check but is refused when dialled", async () => {
    const name = hostname();
    const resolved = await lookup(name, { all: true });
    // The machine's own name resolves to loopback here (/etc/hosts), as on the CI machines.
    expect(resolved.some((a) => a.address.startsWith("127.") || a.address === "::1")).toBe(true);
    const created = await api.req("POST", "/v2/webhooks", {
      body: { organization_id: orgId, name: "by-name", url: `https://${name}:${port}/hook` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await api.req("POST", `/v2/webhooks/${created.body.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body.status_code).toBe(502);
    expect(res.body.error_message).toMatch(/loopback/);
    expect(canary.connections).toBe(0);
  });
});
