import {
  containerRuntimeAvailable,
  startNatsContainer,
  startPostgresContainer,
} from "./containers.ts";
import { startLocalNats } from "./localNats.ts";
import { startLocalPostgres } from "./localPostgres.ts";
import { jetStreamResponds, postgresAcceptsQueries, waitUntil } from "./readiness.ts";
import type { RunningServer } from "./runningServer.ts";

export interface Infra {
  /** Admin connection (database "postgres") that may CREATE DATABASE. */
  databaseUrl: string;
  natsUrl: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    argusInfra: Infra;
  }
}

interface Starters {
  postgres(): Promise<RunningServer>;
  nats(): Promise<RunningServer>;
}

/**
 * Real Postgres and NATS JetStream for a test run. DATABASE_URL / NATS_URL, when set, are used
 * as they are; anything else is started in containers when a container runtime answers,
 * otherwise from local binaries. ARGUS_TESTKIT_RUNTIME=docker|local skips the detection.
 */
export async function startInfra(): Promise<{ infra: Infra; stop(): Promise<void> }> {
  const startedAt = Date.now();
  let starters: Promise<Starters> | undefined;
  const runtime = () => (starters ??= chooseStarters());
  const { DATABASE_URL, NATS_URL } = process.env;
  const [postgres, nats] = await startBoth(
    DATABASE_URL
      ? () => given("DATABASE_URL", DATABASE_URL, postgresAcceptsQueries)
      : async () => (await runtime()).postgres(),
    NATS_URL
      ? () => given("NATS_URL", NATS_URL, jetStreamResponds)
      : async () => (await runtime()).nats(),
  );
  console.info(
    `[testkit] ${postgres.description} at ${redacted(postgres.url)}; ` +
      `${nats.description} at ${redacted(nats.url)}; ` +
      `ready in ${Date.now() - startedAt} ms`,
  );
  return {
    infra: { databaseUrl: postgres.url, natsUrl: nats.url },
    async stop() {
      await Promise.all([postgres.stop(), nats.stop()]);
    },
  };
}

async function chooseStarters(): Promise<Starters> {
  const mode = process.env.ARGUS_TESTKIT_RUNTIME;
  if (mode !== undefined && mode !== "docker" && mode !== "local") {
    throw new Error(`ARGUS_TESTKIT_RUNTIME must be "docker" or "local", not "${mode}"`);
  }
  const containers =
    mode === "docker" || (mode === undefined && (await containerRuntimeAvailable()));
  return containers
    ? { postgres: startPostgresContainer, nats: startNatsContainer }
    : { postgres: startLocalPostgres, nats: startLocalNats };
}

async function given(
  variable: string,
  url: string,
  ready: (url: string) => Promise<boolean>,
): Promise<RunningServer> {
  await waitUntil(`${variable} (${redacted(url)})`, () => ready(url));
  return { url, description: variable, stop: async () => {} };
}

/** Starts both at once; if either fails, the other is stopped so nothing is left running. */
async function startBoth(
  ...starts: [() => Promise<RunningServer>, () => Promise<RunningServer>]
): Promise<[RunningServer, RunningServer]> {
  const [a, b] = await Promise.allSettled(starts.map((start) => start()));
  if (a?.status === "fulfilled" && b?.status === "fulfilled") return [a.value, b.value];
  const failures = [a, b].flatMap((r) => (r?.status === "rejected" ? [r.reason as unknown] : []));
  await Promise.allSettled(
    [a, b].flatMap((r) => (r?.status === "fulfilled" ? [r.value.stop()] : [])),
  );
  // Both often fail for one shared reason, such as no container runtime.
  const reasons = [...new Set(failures.map((f) => (f instanceof Error ? f.message : String(f))))];
  if (reasons.length === 1) throw failures[0];
  throw new AggregateError(failures, `infra failed to start:\n${reasons.join("\n")}`);
}

/** CI may pass credentials in DATABASE_URL / NATS_URL; they must not reach the log. */
function redacted(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/g, "//$1:***@");
}
