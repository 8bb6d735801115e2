import { parseArgs } from "node:util";

export interface FuzzOptions {
  /** Test cases per operation and phase (Schemathesis `--max-examples`). */
  examples: number;
  seed: number;
  workers: number;
  /** The Schemathesis executable (`./argus fuzz` installs it into .tools/schemathesis). */
  schemathesis: string;
  /** Where the JSON and JUnit reports of each run go. */
  reportDir: string;
  /** The runs made, in their order: `v1` (the non-/v2 routes), `member`, `admin`. */
  runs: string[];
  /** More Schemathesis `run` arguments, e.g. `--include-operation-id get_tag` to look at one. */
  extraArgs: string[];
}

const USAGE = `usage: node scripts/fuzz.ts [--examples N] [--seed N] [--workers N] [--report-dir DIR] [--runs v1,member,admin] [-- <schemathesis run args>]
  env: ARGUS_FUZZ_EXAMPLES, ARGUS_FUZZ_SEED, ARGUS_FUZZ_WORKERS, ARGUS_FUZZ_REPORT_DIR, ARGUS_FUZZ_RUNS, SCHEMATHESIS`;

function positive(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, not "${raw}"\n${USAGE}`);
  return n;
}

const RUNS = ["v1", "member", "admin"];

/** A subset of the runs, e.g. `v1` alone while working on the non-/v2 routes. */
function runsOf(raw: string): string[] {
  const runs = raw.split(",").map((r) => r.trim());
  const unknown = runs.filter((r) => !RUNS.includes(r));
  if (unknown.length > 0 || runs.length === 0)
    throw new Error(`--runs takes ${RUNS.join(", ")}, not "${raw}"\n${USAGE}`);
  return RUNS.filter((r) => runs.includes(r));
}

/** Flags win over the environment; the defaults are CI's: a small, fixed-seed run. */
export function fuzzOptions(
  argv: string[],
  env: NodeJS.ProcessEnv,
  defaults: { reportDir: string; schemathesis: string },
): FuzzOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      examples: { type: "string" },
      seed: { type: "string" },
      workers: { type: "string" },
      "report-dir": { type: "string" },
      runs: { type: "string" },
    },
    strict: true,
    allowPositionals: true,
  });
  return {
    examples: positive("--examples", values.examples ?? env.ARGUS_FUZZ_EXAMPLES ?? "20"),
    seed: positive("--seed", values.seed ?? env.ARGUS_FUZZ_SEED ?? "20261124"),
    // One worker: Hypothesis describing strategies in several threads at once trips a CPython
    // 3.11 ast bug ("AST constructor recursion depth mismatch"), and one is reproducible.
    workers: positive("--workers", values.workers ?? env.ARGUS_FUZZ_WORKERS ?? "1"),
    schemathesis: env.SCHEMATHESIS ?? defaults.schemathesis,
    reportDir: values["report-dir"] ?? env.ARGUS_FUZZ_REPORT_DIR ?? defaults.reportDir,
    runs: runsOf(values.runs ?? env.ARGUS_FUZZ_RUNS ?? RUNS.join(",")),
    extraArgs: positionals,
  };
}
