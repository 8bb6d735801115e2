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
  /** More Schemathesis `run` arguments, e.g. `--include-operation-id get_tag` to look at one. */
  extraArgs: string[];
}

const USAGE = `usage: node scripts/fuzz.ts [--examples N] [--seed N] [--workers N] [--report-dir DIR] [-- <schemathesis run args>]
  env: ARGUS_FUZZ_EXAMPLES, ARGUS_FUZZ_SEED, ARGUS_FUZZ_WORKERS, ARGUS_FUZZ_REPORT_DIR, SCHEMATHESIS`;

function positive(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, not "${raw}"\n${USAGE}`);
  return n;
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
    extraArgs: positionals,
  };
}
