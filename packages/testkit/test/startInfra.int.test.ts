import { existsSync } from "node:fs";
import { Client } from "pg";
import { expect, it } from "vitest";
import { startInfra } from "../src/index.ts";
import { jetStreamResponds, postgresAcceptsQueries } from "../src/readiness.ts";

it("starts a Postgres and a JetStream of its own and stops them", async () => {
  const { infra, stop } = await startInfra();
  const client = new Client({ connectionString: infra.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ connections: string; dataDir: string }>(
    `select current_setting('max_connections') as connections,
            current_setting('data_directory') as "dataDir"`,
  );
  const dataDir = rows[0]?.dataDir;
  await client.end();
  expect(await jetStreamResponds(infra.natsUrl)).toBe(true);

  await stop();
  // Servers taken from DATABASE_URL / NATS_URL are not ours to stop.
  if (!process.env.DATABASE_URL) {
    expect(rows[0]?.connections).toBe("300");
    expect(await postgresAcceptsQueries(infra.databaseUrl)).toBe(false);
    if (dataDir?.includes("argus-pg-")) expect(existsSync(dataDir)).toBe(false);
  }
  if (!process.env.NATS_URL) expect(await jetStreamResponds(infra.natsUrl)).toBe(false);
});
