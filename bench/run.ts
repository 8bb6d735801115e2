// `./argus bench` / `pnpm bench -- --duration 10`: each benchmark's subject and baseline under the
// same closed-loop load, alternating in rounds so machine noise hits both; reported as ratios.
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import type { Benchmark } from "./benchmark.ts";
import { authOverheadBenchmark } from "./authOverhead.ts";
import { datasetCreateBenchmark, datasetCreateFloorBenchmark } from "./datasetCreate.ts";
import { datasetPagingBenchmark } from "./datasetPaging.ts";
import { datasetPatchBenchmark, datasetPatchFloorBenchmark } from "./datasetPatch.ts";
import { flightCreateBenchmark, flightCreateFloorBenchmark, flightGetBenchmark } from "./flight.ts";
import {
  spansExportBenchmark,
  spansExportFloorBenchmark,
  spansUpdateEvaluationsBenchmark,
} from "./flightSpans.ts";
import {
  getSpaceBenchmark,
  getSpaceFloorBenchmark,
  getSpaceVersusFloorBenchmark,
} from "./getSpace.ts";
import { longStreamBenchmark } from "./longStreams.ts";
import {
  monitorEvaluationBenchmark,
  monitorScaleBenchmark,
  type ReportBenchmark,
} from "./monitors.ts";
import { orgAdminScaleBenchmark } from "./orgAdminScale.ts";
import { runPeerBenchmark, type PeerResult } from "./peer.ts";
import { spansIngestBenchmark } from "./spansIngest.ts";
import { spansListBenchmark } from "./spansList.ts";
import { taskRunBenchmark, taskRunFloorBenchmark } from "./taskRun.ts";
import { webhookDeadNeighbourBenchmark, webhookDeliveryBenchmark } from "./webhooks.ts";
import { runLoad, type LoadOptions, type LoadResult } from "./load.ts";
import { runOperations, type OperationBenchmark } from "./operations.ts";
import {
  formatTable,
  ratios,
  roundRatioSpread,
  summarize,
  type Ratios,
  type Sample,
} from "./stats.ts";
import { countBuffersInHeapLimit } from "@argus/platform";

// The clients here (Flight readers, COPY streams) are Node processes streaming bytes as the
// services do: the same heap setting, so neither side's client spends its CPU on full
// collections the official (pyarrow) client would not make.
countBuffersInHeapLimit();

const { values } = parseArgs({
  // pnpm passes the `--` of `pnpm bench -- --duration 10` through.
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === "--")),
  options: {
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    concurrency: { type: "string", default: "16" },
    rounds: { type: "string", default: "3" },
    json: { type: "string" },
    // Runs one benchmark by its key in `benchmarks` (e.g. `--only auth-overhead`).
    only: { type: "string" },
  },
});

function positive(flag: string, text: string, integer = false): number {
  const n = Number(text);
  if (!(n > 0) || (integer && !Number.isInteger(n))) {
    throw new Error(`--${flag} must be a positive ${integer ? "integer" : "number"}, not ${text}`);
  }
  return n;
}

const durationS = positive("duration", values.duration);
const warmupS = positive("warmup", values.warmup);
const concurrency = positive("concurrency", values.concurrency, true);
const rounds = positive("rounds", values.rounds, true);
const load = (seconds: number): LoadOptions => ({
  concurrency,
  durationMs: seconds * 1000,
  maxRequests: 1_000_000,
  timeoutMs: 10_000,
});

interface Measured {
  samples: Sample[];
  errorKinds: Record<string, number>;
}

/** One side of a benchmark: what one slice of `seconds` of it measures. */
interface Side {
  name: string;
  slice(seconds: number): Promise<LoadResult>;
}

const isOperations = (b: Benchmark | OperationBenchmark): b is OperationBenchmark =>
  "kind" in b && b.kind === "operations";

/**
 * The two sides of a benchmark: closed-loop GET load on each target, or (`kind: "operations"`)
 * one operation at a time (bench/operations.ts).
 */
function sidesOf(bench: Benchmark | OperationBenchmark): { sides: Side[]; unit: string } {
  if (isOperations(bench)) {
    const maxOps = bench.maxOpsPerSlice ?? Number.MAX_SAFE_INTEGER;
    const side = (op: OperationBenchmark["subject"]): Side => ({
      name: op.name,
      slice: (seconds) => runOperations(op, { durationMs: seconds * 1000, maxOps }),
    });
    const floors = (bench.floors ?? []).map(side);
    return { sides: [side(bench.subject), side(bench.baseline), ...floors], unit: "op/s" };
  }
  const side = (target: Benchmark["subject"]): Side => ({
    name: target.name,
    slice: (seconds) => runLoad(target, load(seconds)),
  });
  return { sides: [side(bench.subject), side(bench.baseline)], unit: "req/s" };
}

/** Warmup, then the measured slice; warmup errors count too (with no time, so no throughput). */
async function measure(side: Side, into: Measured): Promise<LoadResult> {
  const warm = await side.slice(warmupS);
  const result = await side.slice(durationS);
  for (const r of [warm, result]) {
    for (const [kind, n] of Object.entries(r.errorKinds)) {
      into.errorKinds[kind] = (into.errorKinds[kind] ?? 0) + n;
    }
  }
  into.samples.push({ latenciesMs: [], errors: warm.errors, elapsedMs: 0, cpuMs: {} }, result);
  return result;
}

async function run(bench: Benchmark | OperationBenchmark) {
  const { sides, unit } = sidesOf(bench);
  const measured = new Map(
    sides.map((t): [Side, Measured] => [t, { samples: [], errorKinds: {} }]),
  );
  const perRound: { round: number; target: string; summary: ReturnType<typeof summarize> }[] = [];
  for (let round = 1; round <= rounds; round++) {
    // A/B(/C), then (C/)B/A: a drift over the run does not favour whichever always goes first.
    for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
      const summary = summarize([await measure(side, measured.get(side)!)]);
      perRound.push({ round, target: side.name, summary });
      console.info(
        `round ${round} ${side.name.padEnd(8)} ${summary.throughput.toFixed(unit === "op/s" ? 1 : 0)} ${unit}, ` +
          `p50 ${summary.p50Ms.toFixed(2)} ms, p99 ${summary.p99Ms.toFixed(2)} ms, errors ${summary.errors}`,
      );
    }
  }
  const [subject, baseline, ...floorSummaries] = sides.map((s) =>
    summarize(measured.get(s)!.samples),
  );
  const errorKinds = Object.fromEntries(sides.map((t) => [t.name, measured.get(t)!.errorKinds]));
  return {
    benchmark: bench.name,
    subject: subject!,
    baseline: baseline!,
    ratios: ratios(subject!, baseline!),
    floors: floorSummaries.map((floor, i) => ({
      name: sides[2 + i]!.name,
      summary: floor,
      subjectToFloor: ratios(subject!, floor),
      floorToBaseline: ratios(floor, baseline!),
    })),
    perRound,
    errorKinds,
  };
}

const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "unknown",
};
console.info(
  `node ${machine.node}, ${machine.cpus} cpus (${machine.cpuModel}); ` +
    `concurrency ${concurrency}, ${rounds} rounds of ${warmupS} s warmup + ${durationS} s per target`,
);

const results = [];
const benchmarks: Record<string, () => Promise<Benchmark | OperationBenchmark | ReportBenchmark>> =
  {
    "get-space": getSpaceBenchmark,
    "get-space-floor": getSpaceFloorBenchmark,
    "get-space-vs-floor": getSpaceVersusFloorBenchmark,
    "auth-overhead": authOverheadBenchmark,
    "org-admin-scale": orgAdminScaleBenchmark,
    "dataset-paging": datasetPagingBenchmark,
    "dataset-patch-1000": datasetPatchBenchmark,
    "dataset-patch-floor": datasetPatchFloorBenchmark,
    "dataset-create-8mib": datasetCreateBenchmark,
    "dataset-create-floor": datasetCreateFloorBenchmark,
    "spans-ingest-100k": spansIngestBenchmark,
    "spans-list-10m": spansListBenchmark,
    "webhook-delivery": webhookDeliveryBenchmark,
    "webhook-dead-neighbour": webhookDeadNeighbourBenchmark,
    "task-run-1000": taskRunBenchmark,
    "task-run-floor": taskRunFloorBenchmark,
    "long-stream": longStreamBenchmark,
    "flight-create-100k": flightCreateBenchmark,
    "flight-create-floor": flightCreateFloorBenchmark,
    "flight-get-1m": flightGetBenchmark,
    "spans-export-1m": spansExportBenchmark,
    "spans-export-floor": spansExportFloorBenchmark,
    "spans-update-evals-100k": spansUpdateEvaluationsBenchmark,
    "monitor-eval-10m": monitorEvaluationBenchmark,
    "monitors-1000": monitorScaleBenchmark,
  };
// Run only when named: it installs Arize Phoenix and takes long with the default sizes (bench/peer.ts).
const suites: Record<string, () => Promise<PeerResult>> = {
  peer: () => runPeerBenchmark({ durationS, warmupS, rounds }),
};
if (values.only && !(values.only in benchmarks) && !(values.only in suites)) {
  throw new Error(
    `--only ${values.only}: no such benchmark (${[...Object.keys(benchmarks), ...Object.keys(suites)].join(", ")})`,
  );
}
const suiteResults: PeerResult[] = [];
if (values.only && values.only in suites) suiteResults.push(await suites[values.only]!());
for (const [key, setUp] of Object.entries(benchmarks)) {
  if (values.only && values.only !== key) continue;
  const bench = await setUp();
  try {
    // A run of its own that reports its numbers against its goals (no A/B rounds).
    if ("kind" in bench && bench.kind === "report") {
      const report = await bench.run();
      console.info(`\n${bench.name}\n${report.text}\n`);
      results.push({ benchmark: bench.name, report });
      if (!report.ok) console.error(`${bench.name}: a goal was not met`);
      continue;
    }
    const r = await run(bench);
    results.push(r);
    const { subject, baseline, ratios: x } = r;
    console.info(`\n${r.benchmark}`);
    console.info(
      formatTable([
        { name: bench.subject.name, summary: subject },
        { name: bench.baseline.name, summary: baseline },
        ...r.floors.map((f) => ({ name: f.name, summary: f.summary })),
      ]),
    );
    const line = (a: string, b: string, y: Ratios) =>
      `${a}/${b}: throughput ${y.throughput.toFixed(2)}x, p50 ${y.p50.toFixed(2)}x, p99 ${y.p99.toFixed(2)}x`;
    console.info(line(bench.subject.name, bench.baseline.name, x));
    const spread = roundRatioSpread(r.perRound, bench.subject.name, bench.baseline.name);
    if (spread && rounds > 1)
      console.info(
        `${bench.subject.name}/${bench.baseline.name} throughput round by round: ` +
          `${spread.min.toFixed(2)}x–${spread.max.toFixed(2)}x, median ${spread.median.toFixed(2)}x`,
      );
    for (const f of r.floors) {
      console.info(line(bench.subject.name, f.name, f.subjectToFloor));
      console.info(line(f.name, bench.baseline.name, f.floorToBaseline));
    }
    if (isOperations(bench)) for (const l of bench.afterwards?.(baseline) ?? []) console.info(l);
    console.info("");
  } finally {
    await bench.stop();
  }
}

if (values.json) {
  const options = { durationS, warmupS, concurrency, rounds };
  writeFileSync(
    values.json,
    `${JSON.stringify({ machine, options, results, suites: suiteResults }, null, 2)}\n`,
  );
  console.info(`results written to ${values.json}`);
}
const failed = results.flatMap((r) =>
  "subject" in r &&
  r.subject.errors + r.baseline.errors + r.floors.reduce((n, f) => n + f.summary.errors, 0) > 0
    ? [r]
    : [],
);
for (const r of failed) console.error(`${r.benchmark}: errors ${JSON.stringify(r.errorKinds)}`);
const failedSuites = suiteResults.filter((r) =>
  Object.values(r.errorKinds).some((kinds) => Object.keys(kinds).length > 0),
);
for (const r of failedSuites) console.error(`peer: errors ${JSON.stringify(r.errorKinds)}`);
process.exitCode = failed.length + failedSuites.length > 0 ? 1 : 0;
