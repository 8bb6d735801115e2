import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { Client } from "pg";
import { connectClient, inboxPrefixOf, parseNatsServers } from "@argus/platform";

export async function postgresAcceptsQueries(url: string): Promise<boolean> {
  let client: Client | undefined;
  try {
    client = await connectClient({ connectionString: url, connectionTimeoutMillis: 2_000 });
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client?.end().catch(() => {});
  }
}

/**
 * The TCP port answering is not enough: JetStream comes up after the listener. `url` may name
 * several servers, separated by commas (NATS_URL's form).
 */
export async function jetStreamResponds(
  url: string,
  credentials?: { user: string; pass: string },
): Promise<boolean> {
  const nc = await connect({
    servers: parseNatsServers(url),
    timeout: 2_000,
    reconnect: false,
    ...credentials,
    ...(credentials ? { inboxPrefix: inboxPrefixOf(credentials.user) } : {}),
  }).catch(() => null);
  if (nc === null) return false;
  try {
    const jsm = await jetstreamManager(nc, { timeout: 2_000 });
    await jsm.getAccountInfo();
    return true;
  } catch {
    return false;
  } finally {
    await nc.close().catch(() => {});
  }
}

/** Polls `check` until it holds, for servers we did not start (env URLs, containers). */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
