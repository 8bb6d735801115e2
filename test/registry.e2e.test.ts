import { readFileSync } from "node:fs";
import pg from "pg";
import { parse } from "yaml";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GATEWAY, SERVICE_REGISTRY, serviceEnv } from "@argus/platform";
import { startApi, type Api } from "./support.ts";

let api: Api;
beforeAll(async () => {
  api = await startApi();
}, 120_000);
afterAll(() => api?.stop());

it("the stack helper starts exactly the registry's processes, each migrated and ready", async () => {
  const names = SERVICE_REGISTRY.map((d) => d.name);
  expect(Object.keys(api.stack.processes).sort()).toEqual([...names, GATEWAY.name].sort());
  for (const d of SERVICE_REGISTRY) {
    expect(api.stack.env[serviceEnv(d.name).grpcUrl]).toMatch(/^127\.0\.0\.1:\d+$/);
    const probe = `http://127.0.0.1:${api.stack.env[serviceEnv(d.name).probePort]}/readyz`;
    expect((await fetch(probe)).status).toBe(200);
  }
  const db = new pg.Client({ connectionString: api.stack.env.DATABASE_URL });
  await db.connect();
  try {
    for (const d of SERVICE_REGISTRY) {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from ${d.schema}.events`,
      );
      expect(rows[0]!.n, `${d.schema}.events exists`).toBeGreaterThanOrEqual(0);
    }
  } finally {
    await db.end();
  }
});

it("the Helm chart's registry file is the registry, and values.yaml configures each process", () => {
  const chart = new URL("../deploy/helm/argus/", import.meta.url);
  const file = JSON.parse(readFileSync(new URL("files/registry.json", chart), "utf8")) as {
    gateway: { name: string };
    services: { name: string; schema: string; valuesKey: string }[];
  };
  expect(file.gateway.name).toBe(GATEWAY.name);
  expect(file.services.map((s) => [s.name, s.schema])).toEqual(
    SERVICE_REGISTRY.map((d) => [d.name, d.schema]),
  );
  const values = parse(readFileSync(new URL("values.yaml", chart), "utf8")) as {
    services: Record<string, { enabled?: boolean }>;
  };
  for (const s of [{ valuesKey: "gateway" }, ...file.services])
    expect(values.services[s.valuesKey]?.enabled, s.valuesKey).toBe(true);
});
