import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort, spawnProcess, type SpawnedProcess } from "@argus/testkit";
import { startApi, type Api } from "./support.ts";

// Gateways cache principals, but a revoke returns only once every gateway dropped the key's
// account (or its lease on the cache ran out), so the very next request on any gateway is 401
// (ARCHITECTURE §8; test/principal-cache-races.e2e.test.ts hammers three gateways).
let api: Api;
let second: SpawnedProcess;
let secondUrl: string;

beforeAll(async () => {
  api = await startApi();
  const port = await freePort();
  secondUrl = `http://127.0.0.1:${port}`;
  second = await spawnProcess({
    name: "gateway-2",
    command: process.execPath,
    args: ["services/gateway/src/main.ts"],
    cwd: fileURLToPath(new URL("../", import.meta.url)),
    env: {
      ...api.stack.env,
      ...api.stack.processEnv.gateway,
      ARGUS_HTTP_PORT: String(port),
      ARGUS_OTLP_GRPC_PORT: "0",
      ARGUS_FLIGHT_PORT: "0",
    },
    readyWhen: async () => (await fetch(`${secondUrl}/readyz`)).ok,
    timeoutMs: 60_000,
  });
}, 120_000);
afterAll(async () => {
  await second?.stop();
  await api?.stop();
});

const get = (base: string, key: string) =>
  fetch(`${base}/v2/spaces`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

it("a key revoked through one gateway is 401 on the next request through either", async () => {
  for (const [revokeVia, other] of [
    [api.stack.baseUrl, secondUrl],
    [secondUrl, api.stack.baseUrl],
  ] as const) {
    const created = await api.req("POST", "/v2/api-keys", {
      body: { key_type: "USER", name: "k" },
    });
    const key = created.body.key as string;
    // Warm both gateways with the key, so any cache would now hold it.
    expect(await get(api.stack.baseUrl, key)).toBe(200);
    expect(await get(secondUrl, key)).toBe(200);
    const revoked = await fetch(`${revokeVia}/v2/api-keys/${created.body.id}/revoke`, {
      method: "PUT",
      headers: { authorization: `Bearer ${api.stack.apiKey}` },
    });
    expect(revoked.status).toBe(204);
    expect(await get(other, key)).toBe(401);
    expect(await get(revokeVia, key)).toBe(401);
  }
});
