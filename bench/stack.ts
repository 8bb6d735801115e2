import { isDeepStrictEqual } from "node:util";
import {
  createTestDatabase,
  startInfra,
  startStack,
  NO_RATE_LIMITS,
  type Stack,
} from "@argus/testkit";
import type { Target } from "./load.ts";

/** A benchmark's own stack and what stops it; more can be added to stop first (`onStop`). */
export interface BenchStack {
  stack: Stack;
  databaseUrl: string;
  /** The benchmark's NATS server, beside the stack's own: for a floor's events. */
  natsUrl: string;
  onStop(cleanup: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

/**
 * Postgres, NATS and the whole stack on a fresh database, with neither the rate limit nor
 * per-request logging in what is measured (`env` adds to the processes' environment). `set`
 * runs on it; if it throws, all is stopped.
 */
export async function withBenchStack<T>(
  set: (b: BenchStack) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const { infra, stop: stopInfra } = await startInfra();
    cleanups.push(stopInfra);
    const db = await createTestDatabase(infra);
    cleanups.push(db.drop);
    const stack = await startStack({
      databaseUrl: db.url,
      env: {
        ...NO_RATE_LIMITS,
        LOG_LEVEL: process.env.BENCH_STACK_LOG ? "info" : "warn",
        ...(process.env.BENCH_GRPC_TRACE
          ? { GRPC_VERBOSITY: "DEBUG", GRPC_TRACE: process.env.BENCH_GRPC_TRACE }
          : {}),
        ...(process.env.BENCH_CPU_PROF_DIR
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}` }
          : {}),
        ...env,
      },
      // The processes' warnings and errors, when asked: a failed operation's cause is there.
      ...(process.env.BENCH_STACK_LOG ? { onLine: (line: string) => console.error(line) } : {}),
    });
    cleanups.push(stack.stop);
    return await set({
      stack,
      databaseUrl: db.url,
      natsUrl: infra.natsUrl,
      onStop: (cleanup) => cleanups.push(cleanup),
      stop,
    });
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Both targets must answer 200 with the same JSON, or the comparison means nothing. */
export async function expectSameBody(a: Target, b: Target): Promise<void> {
  const read = async (t: Target) => {
    const r = await fetch(t.url, { headers: t.headers });
    return { name: t.name, status: r.status, body: await r.json() };
  };
  const [ra, rb] = await Promise.all([read(a), read(b)]);
  if (ra.status !== 200 || rb.status !== 200 || !isDeepStrictEqual(ra.body, rb.body)) {
    const show = (r: typeof ra) => `${r.name}: ${r.status} ${JSON.stringify(r.body)}`;
    throw new Error(`targets disagree:\n${show(ra)}\n${show(rb)}`);
  }
}
