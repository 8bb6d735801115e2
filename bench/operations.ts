import { performance } from "node:perf_hooks";
import { briefError } from "@argus/testkit";
import { cpuTimes } from "./cpuTime.ts";
import type { Sample, Summary } from "./stats.ts";

/**
 * One kind of operation a benchmark times: a write, a bulk statement, anything that is not a
 * plain GET. `run` is timed whole and must throw when the operation did not do its work (a
 * non-2xx answer, fewer rows than meant); `prepare`, when given, runs before each `run`, untimed
 * (building the next request body, fresh ids).
 */
export interface Operation {
  name: string;
  prepare?(): Promise<void> | void;
  /**
   * Does the work. An operation that ends out of the caller's sight (a run in the background,
   * watched by polling) answers its own latency in ms, from when `run` began to the end the
   * system recorded, so that the poll's interval is not counted as the subject's; else `run`
   * is timed from call to return.
   */
  run(): Promise<void | number>;
  /** The processes doing the work, by name, whose CPU time is measured. */
  pids: Record<string, number>;
}

/** A subject operation measured side by side with a baseline doing the least possible same work. */
export interface OperationBenchmark {
  kind: "operations";
  name: string;
  subject: Operation;
  baseline: Operation;
  /**
   * The least the subject's work costs in its design (and, where measured, in the shape it is
   * built in), each measured in the same rounds as the other sides: a goal the subject misses
   * against the baseline is then judged against floors taken in the same minutes, not in
   * another run on this machine whose speed swings between runs.
   */
  floors?: Operation[];
  /** At most this many operations per measured slice (an 8 MiB write adds 8 MiB each time). */
  maxOpsPerSlice?: number;
  /** Lines printed after the ratios, given the baseline's pooled summary (what a side saw besides). */
  afterwards?(baseline: Summary): string[];
  /** Stops whatever the benchmark started. */
  stop(): Promise<void>;
}

export interface OperationOptions {
  /** Runs operations one after another for this long (at least one, however long it takes)... */
  durationMs: number;
  /** ...or until this many ran. */
  maxOps: number;
}

export interface OperationResult extends Sample {
  /** Error counts by cause (the thrown error's message). */
  errorKinds: Record<string, number>;
}

/**
 * Sequential: one operation at a time, the next once the last finished, for `durationMs` or
 * `maxOps`; each operation's latency is its `run` alone. CPU time is that of the whole slice
 * (`prepare` included, for the client), per operation.
 */
export async function runOperations(
  op: Operation,
  opts: OperationOptions,
): Promise<OperationResult> {
  const latenciesMs: number[] = [];
  const errorKinds: Record<string, number> = {};
  const cpuBefore = cpuTimes(op.pids);
  const started = performance.now();
  const deadline = started + opts.durationMs;
  let timedMs = 0;
  for (let n = 0; n === 0 || (performance.now() < deadline && n < opts.maxOps); n++) {
    await op.prepare?.();
    const t0 = performance.now();
    try {
      latenciesMs.push(await timedRun(op));
    } catch (err) {
      const kind = err instanceof Error ? err.message.slice(0, 200) : String(err);
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    }
    timedMs += performance.now() - t0;
  }
  const cpuMs = Object.fromEntries(
    Object.entries(cpuTimes(op.pids)).map(([name, ms]) => [name, ms - cpuBefore[name]!]),
  );
  const errors = Object.values(errorKinds).reduce((a, b) => a + b, 0);
  // Throughput over the timed operations only: `prepare` is not what is measured.
  return { latenciesMs, errors, elapsedMs: timedMs, cpuMs, errorKinds };
}

/** One `run`'s latency: the one it answers, else from call to return. */
async function timedRun(op: Pick<Operation, "run">): Promise<number> {
  const t0 = performance.now();
  const own = await op.run();
  return typeof own === "number" ? own : performance.now() - t0;
}

export interface ConcurrentOptions extends OperationOptions {
  /** Operations in flight at once, each worker starting its next when its last finished. */
  concurrency: number;
}

/**
 * Closed loop over an operation that takes no `prepare`: `concurrency` workers for `durationMs`
 * (each runs at least once) or until `maxOps` started. Throughput is over the slice's wall time,
 * since the workers overlap.
 */
export async function runConcurrently(
  op: Pick<Operation, "run" | "pids">,
  opts: ConcurrentOptions,
): Promise<OperationResult> {
  const latenciesMs: number[] = [];
  const errorKinds: Record<string, number> = {};
  const cpuBefore = cpuTimes(op.pids);
  const started = performance.now();
  const deadline = started + opts.durationMs;
  let begun = 0;
  const worker = async (first: boolean) => {
    while (first || (performance.now() < deadline && begun < opts.maxOps)) {
      first = false;
      begun++;
      try {
        latenciesMs.push(await timedRun(op));
      } catch (err) {
        const kind = briefError(err).slice(0, 200);
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => worker(i === 0)));
  const elapsedMs = performance.now() - started;
  const cpuMs = Object.fromEntries(
    Object.entries(cpuTimes(op.pids)).map(([name, ms]) => [name, ms - cpuBefore[name]!]),
  );
  const errors = Object.values(errorKinds).reduce((a, b) => a + b, 0);
  return { latenciesMs, errors, elapsedMs, cpuMs, errorKinds };
}
