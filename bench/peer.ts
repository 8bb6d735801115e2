// `./argus bench --only peer`: Argus beside Arize Phoenix on the same machine and the same
// Postgres, the same data seeded through each one's public API and checked equal, then the
// operations both have, in interleaved rounds at each worker count, with Phoenix's
// authentication on and then off (issue 31, goal P1).
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestDatabase } from "@argus/testkit";
import { cpuTimes } from "./cpuTime.ts";
import { Api } from "./datasets.ts";
import { runLoad, type LoadResult } from "./load.ts";
import { runConcurrently } from "./operations.ts";
import {
  formatPeerTable,
  peerRow,
  peerSizes,
  snapshotDifferences,
  type PeerExample,
  type PeerRow,
  type PeerSizes,
  type PeerSnapshot,
} from "./peerReport.ts";
import {
  argusSystem,
  phoenixSystem,
  type PeerIds,
  type PeerPromptVersion,
  type PeerReads,
  type PeerSystem,
  isTransient,
} from "./peerSystems.ts";
import { phoenixVenv, startPhoenix, type Phoenix } from "./phoenix.ts";
import { benchSpans, otlpBody } from "./spans.ts";
import { withBenchStack } from "./stack.ts";
import { summarize, type Sample } from "./stats.ts";

export interface PeerOptions {
  durationS: number;
  warmupS: number;
  rounds: number;
}

export interface PeerResult {
  phoenix: string;
  sizes: PeerSizes;
  rows: PeerRow[];
  /** Errors by system and cause, over every slice (warmups included). */
  errorKinds: Record<string, Record<string, number>>;
}

/** The project whose page of spans is read: the first ingest operation fills it, in both. */
const SPANS_PROJECT = "peer-spans";

/** Example `n` of a dataset, the same in both systems. */
const example = (n: number): PeerExample => ({
  question: `What is the refund policy for order ${n}?`,
  answer: `Orders can be refunded within 30 days of delivery (order ${n}).`,
  n,
});
const examples = (count: number) => Array.from({ length: count }, (_, i) => example(i + 1));
const promptVersions = (count: number): PeerPromptVersion[] =>
  Array.from({ length: count }, (_, i) => ({
    model: "gpt-4o-mini",
    content: `You answer questions about orders, in two sentences (version ${i + 1}).`,
  }));
const datasetName = (i: number) => `peer-dataset-${String(i).padStart(4, "0")}`;

/** The seeded data (everything but spans), through the system's own API; its ids. */
async function seed(
  system: PeerSystem,
  sizes: PeerSizes,
): Promise<Omit<PeerIds, "spansProjectId">> {
  const t0 = performance.now();
  const projectId = await system.createProject("peer-project");
  // Oldest first; the first holds the examples page.
  const examplesDatasetId = await system.createDataset(
    datasetName(0),
    examples(sizes.examplesPage),
  );
  for (let i = 1; i < sizes.datasets; i++) {
    await system.createDataset(datasetName(i), examples(sizes.datasetExamples));
  }
  const promptId = await system.createPrompt("peer-prompt", promptVersions(sizes.promptVersions));
  console.info(`peer: seeded ${system.name} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { projectId, examplesDatasetId, promptId };
}

async function snapshot(
  system: PeerSystem,
  ids: Partial<PeerIds>,
  sizes: PeerSizes,
): Promise<PeerSnapshot> {
  const names = await system.datasetNames(sizes.page);
  return {
    projectName: await system.projectName(ids.projectId!),
    datasetNames: names.all,
    datasetPage: names.page,
    examples: await system.examples(ids.examplesDatasetId!),
    prompt: await system.latestPrompt(ids.promptId!),
    ...(ids.spansProjectId
      ? { spanPage: await system.spanPage(ids.spansProjectId, sizes.page) }
      : {}),
  };
}

async function expectSameData(
  a: { system: PeerSystem; ids: Partial<PeerIds> },
  b: { system: PeerSystem; ids: Partial<PeerIds> },
  sizes: PeerSizes,
  when: string,
): Promise<void> {
  const [sa, sb] = [
    await patiently(() => snapshot(a.system, a.ids, sizes)),
    await patiently(() => snapshot(b.system, b.ids, sizes)),
  ];
  const differences = snapshotDifferences(sa, sb);
  if (differences.length > 0) {
    throw new Error(
      `peer: ${a.system.name} and ${b.system.name} disagree ${when}:\n${differences.join("\n")}`,
    );
  }
  if (sa.datasetNames.length !== sizes.datasets || sa.examples.length !== sizes.examplesPage) {
    throw new Error(
      `peer: ${sa.datasetNames.length} datasets and ${sa.examples.length} examples, not ${sizes.datasets} and ${sizes.examplesPage}`,
    );
  }
  console.info(
    `peer: same data ${when}: project, ${sa.datasetNames.length} datasets (names in order), ` +
      `${sa.examples.length} examples, the prompt's latest of ${sizes.promptVersions} versions` +
      (sa.spanPage ? `, the first ${sa.spanPage.length} spans of ${SPANS_PROJECT}` : ""),
  );
}

/**
 * Polls `check` until it holds, at most every 2 % of the time waited so far (20 ms to 1 s). A
 * transient refusal (`isTransient`: 429, 502, 503, 504, no connection) is "not yet", counted in
 * `refused`.
 */
async function waitUntil(
  check: () => Promise<boolean>,
  since: number,
  timeoutMs: number,
  what: string,
  refused: Record<string, number>,
) {
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      if (!isTransient(err)) throw err;
      const cause = `query: ${describe(err).slice(0, 80)}`;
      refused[cause] = (refused[cause] ?? 0) + 1;
    }
    const waited = performance.now() - since;
    if (waited > timeoutMs) throw new Error(`${what}: not after ${(waited / 1000).toFixed(0)} s`);
    // Each poll is a query the system under test answers while it ingests: rarely, later on.
    await sleep(Math.min(1000, Math.max(20, waited / 50)));
  }
}

/** `fn` again, up to 5 times a second apart, while it is refused for now (an untimed read). */
async function patiently<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt === 5 || !isTransient(err)) throw err;
      console.info(`peer: ${describe(err).slice(0, 200)}; again in 1 s`);
      await sleep(1000);
    }
  }
}

/** Span ids a probe asks for at once: a short IN list, cheap for both. */
const PROBE_IDS = 20;

/**
 * `spans` OTLP/HTTP protobuf exports into a project named `project`, `inFlight` at a time, timed
 * until a span query through the API sees the last span of every export (each system stores an
 * export's spans in order: Argus in one transaction, Phoenix through one FIFO queue), then,
 * untimed, every span of the project counted through the API must be there.
 */
async function ingest(
  system: PeerSystem,
  project: string,
  bodies: readonly Uint8Array[],
  lastSpanIds: readonly string[],
  total: number,
  inFlight: number,
): Promise<
  Sample & {
    errorKinds: Record<string, number>;
    /** Exports refused for now and sent again, by cause. */
    refused: Record<string, number>;
    projectId?: string;
  }
> {
  const pids = system.pids();
  const refused: Record<string, number> = {};
  const cpuBefore = cpuTimes(pids);
  const t0 = performance.now();
  try {
    let next = 0;
    const exporter = async () => {
      while (next < bodies.length) {
        for (const [cause, n] of Object.entries(await system.sendOtlp(bodies[next++]!))) {
          refused[cause] = (refused[cause] ?? 0) + n;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, bodies.length) }, exporter));
    let projectId: string | undefined;
    const timeoutMs = 6 * 3600_000;
    await waitUntil(
      async () => (projectId ??= await system.projectIdNamed(project)) !== undefined,
      t0,
      timeoutMs,
      `${system.name} project ${project}`,
      refused,
    );
    // The markers not seen yet, PROBE_IDS at a time; one seen stays seen.
    const unseen = new Set(lastSpanIds);
    await waitUntil(
      async () => {
        const probe = [...unseen].slice(0, PROBE_IDS);
        for (const id of await system.spansVisible(projectId!, probe)) unseen.delete(id);
        return unseen.size === 0;
      },
      t0,
      timeoutMs,
      `${system.name} spans of ${project}`,
      refused,
    );
    const latencyMs = performance.now() - t0;
    const cpuAfter = cpuTimes(pids);
    const counted = await patiently(() => system.countSpans(projectId!));
    if (counted !== total)
      throw new Error(`${system.name} ${project}: ${counted} spans, not ${total}`);
    return {
      latenciesMs: [latencyMs],
      errors: 0,
      elapsedMs: latencyMs,
      cpuMs: Object.fromEntries(Object.entries(cpuAfter).map(([n, ms]) => [n, ms - cpuBefore[n]!])),
      errorKinds: {},
      refused,
      projectId: projectId!,
    };
  } catch (err) {
    const kind = describe(err).slice(0, 300);
    return {
      latenciesMs: [],
      errors: 1,
      elapsedMs: 0,
      cpuMs: {},
      errorKinds: { [kind]: 1 },
      refused,
    };
  }
}

/** An error's message with its cause's code (fetch says only "fetch failed"). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const detail =
    typeof cause?.code === "string"
      ? cause.code
      : typeof cause?.message === "string"
        ? cause.message
        : "";
  return detail ? `${err.message} (${detail})` : err.message;
}

/** Runs the peer benchmark and prints its table; the rows and errors for `--json`. */
export async function runPeerBenchmark(opts: PeerOptions): Promise<PeerResult> {
  const sizes = peerSizes(process.env);
  const venv = phoenixVenv();
  console.info(`peer: Argus vs ${venv.requirement}; sizes ${JSON.stringify(sizes)}`);
  return withBenchStack(async ({ stack, databaseUrl, stop }) => {
    let phoenix: Phoenix | undefined;
    const admin = new URL(databaseUrl);
    admin.pathname = "/postgres";
    // Phoenix's own database on the same Postgres server as the stack's.
    const phoenixDb = await createTestDatabase({ databaseUrl: admin.toString(), natsUrl: "" });
    let result: PeerResult;
    try {
      const api = new Api(stack);
      const spaceId = await api.defaultSpaceId();
      const t0 = performance.now();
      phoenix = await startPhoenix({
        databaseUrl: phoenixDb.url,
        auth: sizes.authModes[0] === "on",
      });
      console.info(
        `peer: Phoenix (auth ${sizes.authModes[0]}) ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      const systems = {
        argus: argusSystem(stack, api, spaceId),
        phoenix: phoenixSystem(() => phoenix!),
      };
      const ids: Record<"argus" | "phoenix", Partial<PeerIds>> = {
        argus: await seed(systems.argus, sizes),
        phoenix: await seed(systems.phoenix, sizes),
      };
      const both = () =>
        [
          { system: systems.argus, ids: ids.argus },
          { system: systems.phoenix, ids: ids.phoenix },
        ] as const;
      await expectSameData(...both(), sizes, "before measuring");

      const rows: PeerRow[] = [];
      const names = {
        project: "read one project",
        datasets: `page of ${sizes.page} datasets of ${sizes.datasets}`,
        create: `create dataset of ${sizes.createExamples} examples`,
        ingest: `${sizes.spans} spans until queryable`,
        spans: `page of ${sizes.page} spans of ${sizes.spans}`,
        examples: `examples page (${sizes.examplesPage})`,
        prompt: "prompt + latest version",
      };
      const operations: string[] = Object.values(names);
      const errorKinds: PeerResult["errorKinds"] = { Argus: {}, Phoenix: {} };
      const addErrors = (system: PeerSystem, kinds: Record<string, number>) => {
        const into = errorKinds[system.name]!;
        for (const [k, n] of Object.entries(kinds)) into[k] = (into[k] ?? 0) + n;
      };
      let ingested = 0;

      for (const [m, auth] of sizes.authModes.entries()) {
        if (m > 0) {
          await phoenix.stop();
          phoenix = undefined;
          phoenix = await startPhoenix({ databaseUrl: phoenixDb.url, auth: auth === "on" });
          await expectSameData(...both(), sizes, `with Phoenix's authentication ${auth}`);
        }
        const measured = (
          operation: string,
          workers: number,
          samples: Record<"argus" | "phoenix", Sample[]>,
        ) => {
          const row = peerRow({
            auth,
            operation,
            workers,
            argus: summarize(samples.argus),
            phoenix: summarize(samples.phoenix),
          });
          rows.push(row);
          console.info(
            `peer: auth ${auth}, ${operation}, ${workers} workers: throughput ${row.throughput.toFixed(2)}x, ` +
              `p50 ${row.p50.toFixed(2)}x (${row.argus.p50Ms.toFixed(2)} vs ${row.phoenix.p50Ms.toFixed(2)} ms), ` +
              `p99 ${row.p99.toFixed(2)}x, errors ${row.argus.errors}/${row.phoenix.errors}`,
          );
        };
        /** A/B then B/A: a drift over the run favours neither. */
        const order = (round: number) =>
          round % 2 === 1 ? (["argus", "phoenix"] as const) : (["phoenix", "argus"] as const);

        // Spans until queryable, first: the first export fills the project the span page reads.
        for (const workers of sizes.workers) {
          const samples = { argus: [] as Sample[], phoenix: [] as Sample[] };
          for (let round = 1; round <= sizes.ingestRounds; round++) {
            const project = ingested === 0 ? SPANS_PROJECT : `peer-ingest-${ingested}`;
            ingested++;
            // The same spans to both, fresh ids for every project.
            const spans = benchSpans(sizes.spans);
            const bodies: Uint8Array[] = [];
            const lastSpanIds: string[] = [];
            for (let i = 0; i < sizes.spans; i += sizes.spansPerRequest) {
              const batch = spans.slice(i, i + sizes.spansPerRequest);
              bodies.push(otlpBody(project, batch));
              lastSpanIds.push(batch.at(-1)!.spanId);
            }
            for (const key of order(round)) {
              const system = systems[key];
              const result = await ingest(
                system,
                project,
                bodies,
                lastSpanIds,
                sizes.spans,
                workers,
              );
              addErrors(system, result.errorKinds);
              samples[key].push(result);
              if (project === SPANS_PROJECT && result.projectId)
                ids[key].spansProjectId = result.projectId;
              console.info(
                `peer: ${system.name} ${sizes.spans} spans (${workers} in flight) queryable in ` +
                  `${(result.latenciesMs[0] ?? NaN).toFixed(0)} ms` +
                  (Object.keys(result.refused).length > 0
                    ? `; exports sent again after ${JSON.stringify(result.refused)}`
                    : "") +
                  (result.errors ? `; FAILED: ${JSON.stringify(result.errorKinds)}` : ""),
              );
            }
            if (project === SPANS_PROJECT)
              await expectSameData(...both(), sizes, "with the spans in");
          }
          measured(names.ingest, workers, samples);
        }
        if (!ids.argus.spansProjectId || !ids.phoenix.spansProjectId) {
          throw new Error(
            `peer: ${SPANS_PROJECT} was not ingested into both; no span page to read`,
          );
        }

        const reads: Record<"argus" | "phoenix", PeerReads> = {
          argus: systems.argus.reads(ids.argus as PeerIds, sizes.page),
          phoenix: systems.phoenix.reads(ids.phoenix as PeerIds, sizes.page),
        };
        for (const read of ["project", "datasets", "spans", "examples", "prompt"] as const) {
          const operation = names[read];
          for (const workers of sizes.workers) {
            const samples = { argus: [] as Sample[], phoenix: [] as Sample[] };
            for (let round = 1; round <= opts.rounds; round++) {
              for (const key of order(round)) {
                const target = { ...reads[key][read], pids: systems[key].pids() };
                const slice = (seconds: number) =>
                  runLoad(target, {
                    concurrency: workers,
                    durationMs: seconds * 1000,
                    maxRequests: 1_000_000,
                    timeoutMs: 30_000,
                  });
                const warm = await slice(opts.warmupS);
                const result = await slice(opts.durationS);
                addErrors(systems[key], warm.errorKinds);
                addErrors(systems[key], result.errorKinds);
                samples[key].push(warmupErrors(warm), result);
              }
            }
            measured(operation, workers, samples);
          }
        }

        // Creates last: each slice's datasets are deleted after it, untimed, so every list above
        // saw exactly the seeded ones.
        const body = examples(sizes.createExamples);
        let created = 0;
        for (const workers of sizes.workers) {
          const samples = { argus: [] as Sample[], phoenix: [] as Sample[] };
          for (let round = 1; round <= opts.rounds; round++) {
            for (const key of order(round)) {
              const system = systems[key];
              const made: string[] = [];
              const op = {
                run: async () => {
                  made.push(await system.createDataset(`peer-create-${created++}`, body));
                },
                pids: system.pids(),
              };
              const slice = (seconds: number) =>
                runConcurrently(op, {
                  concurrency: workers,
                  durationMs: seconds * 1000,
                  maxOps: 200,
                });
              const warm = await slice(opts.warmupS);
              const result = await slice(opts.durationS);
              addErrors(system, warm.errorKinds);
              addErrors(system, result.errorKinds);
              samples[key].push(warmupErrors(warm), result);
              for (const id of made) await system.deleteDataset(id);
            }
          }
          measured(names.create, workers, samples);
        }
      }
      await expectSameData(...both(), sizes, "after measuring");
      console.info(
        `\npeer: Argus / ${venv.requirement} (P1: throughput ≥ 2x and p50 ≤ 0.5x Phoenix's)`,
      );
      // In the order of operations, each at every worker count, per auth mode.
      const rank = (r: PeerRow) => [
        sizes.authModes.indexOf(r.auth),
        operations.indexOf(r.operation),
        sizes.workers.indexOf(r.workers),
      ];
      rows.sort((a, b) => {
        const [x, y] = [rank(a), rank(b)];
        return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
      });
      console.info(formatPeerTable(rows));
      result = { phoenix: venv.requirement, sizes, rows, errorKinds };
    } finally {
      await phoenix?.stop();
      await phoenixDb.drop();
    }
    // On a throw, withBenchStack stops the stack itself.
    await stop();
    return result;
  });
}

/** A warmup slice counts for its errors only (no time, so no throughput). */
function warmupErrors(warm: LoadResult | { errors: number }): Sample {
  return { latenciesMs: [], errors: warm.errors, elapsedMs: 0, cpuMs: {} };
}
