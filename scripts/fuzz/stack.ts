import { createTestDatabase, startStack, NO_RATE_LIMITS, type Infra } from "@argus/testkit";

/**
 * The throw-away stack a fuzz run hammers: its own database on `infra` (the testkit's Postgres
 * and NATS unless DATABASE_URL / NATS_URL are given), its own stream, every process on free
 * ports. Each thing started pushes how to stop it onto `cleanup`, newest first.
 */
export async function startFuzzStack(
  infra: Infra,
  cleanup: (() => Promise<void>)[],
  onLine: (line: string) => void,
) {
  const db = await createTestDatabase(infra);
  cleanup.unshift(db.drop);
  const stack = await startStack({
    databaseUrl: db.url,
    env: {
      // One client hammering a few keys: rate limits are the gateway suite's subject, not this.
      ...NO_RATE_LIMITS,
    },
    onLine,
  });
  cleanup.unshift(stack.stop);
  const spaces = await fetch(`${stack.baseUrl}/v2/spaces`, {
    headers: { authorization: `Bearer ${stack.apiKey}` },
  });
  const firstSpace = ((await spaces.json()) as { spaces: { id: string }[] }).spaces[0]!.id;
  return { baseUrl: stack.baseUrl, apiKey: stack.apiKey, firstSpace };
}
