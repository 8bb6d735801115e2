/** What one measured slice of load against one target produced. */
export interface Sample {
  /** Latency of every 200 response, in milliseconds. */
  latenciesMs: number[];
  /** Responses that were not 200, plus requests that failed or timed out. */
  errors: number;
  /** Wall time from the first request sent to the last response received. */
  elapsedMs: number;
  /** CPU time each process used meanwhile, by process name. */
  cpuMs: Record<string, number>;
}

export interface Summary {
  requests: number;
  errors: number;
  throughput: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU microseconds per successful request, by process name. */
  cpuUsPerRequest: Record<string, number>;
}

export interface Ratios {
  throughput: number;
  p50: number;
  p99: number;
}

/** Nearest-rank percentile (p in 0..100) of values in ascending order; NaN when empty. */
export function percentile(ascending: readonly number[], p: number): number {
  if (ascending.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * ascending.length);
  return ascending[Math.min(Math.max(rank, 1), ascending.length) - 1]!;
}

/** Pools the samples of one target: every latency together, throughput over the summed time. */
export function summarize(samples: readonly Sample[]): Summary {
  const latencies = samples.flatMap((s) => s.latenciesMs).sort((a, b) => a - b);
  const elapsedMs = samples.reduce((sum, s) => sum + s.elapsedMs, 0);
  const cpuUsPerRequest: Record<string, number> = {};
  for (const [name, ms] of samples.flatMap((s) => Object.entries(s.cpuMs))) {
    cpuUsPerRequest[name] = (cpuUsPerRequest[name] ?? 0) + (ms * 1000) / latencies.length;
  }
  return {
    requests: latencies.length,
    errors: samples.reduce((sum, s) => sum + s.errors, 0),
    throughput: elapsedMs > 0 ? (latencies.length * 1000) / elapsedMs : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuUsPerRequest,
  };
}

/** How `subject` compares with `baseline`: throughput ratio below 1 and latency above 1 mean slower. */
export function ratios(subject: Summary, baseline: Summary): Ratios {
  return {
    throughput: subject.throughput / baseline.throughput,
    p50: subject.p50Ms / baseline.p50Ms,
    p99: subject.p99Ms / baseline.p99Ms,
  };
}

/** A fixed-width text table of named summaries, CPU per request last. */
export function formatTable(rows: readonly { name: string; summary: Summary }[]): string {
  const header = ["target", "requests", "errors", "req/s", "p50 ms", "p99 ms", "CPU µs/req"];
  const cells = rows.map(({ name, summary: s }) => [
    name,
    String(s.requests),
    String(s.errors),
    s.throughput.toFixed(0),
    s.p50Ms.toFixed(2),
    s.p99Ms.toFixed(2),
    Object.entries(s.cpuUsPerRequest)
      .map(([process, us]) => `${process} ${us.toFixed(0)}`)
      .join(", "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) =>
        i === 0 || i === c.length - 1 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!),
      )
      .join("  ")
      .trimEnd();
  return [header, ...cells].map(line).join("\n");
}

/**
 * The subject's throughput over the baseline's round by round (each round runs both, one right
 * after the other), lowest, median and highest: how far a run's pooled ratio is from what any
 * one stretch of it saw, on a machine whose speed moves within seconds. Undefined with no round
 * that ran both.
 */
export function roundRatioSpread(
  perRound: readonly { round: number; target: string; summary: Summary }[],
  subject: string,
  baseline: string,
): { min: number; median: number; max: number } | undefined {
  const byRound = new Map<number, { subject?: number; baseline?: number }>();
  for (const r of perRound) {
    const sides = byRound.get(r.round) ?? {};
    if (r.target === subject) sides.subject = r.summary.throughput;
    else if (r.target === baseline) sides.baseline = r.summary.throughput;
    byRound.set(r.round, sides);
  }
  const ratios = [...byRound.values()]
    .flatMap((s) => (s.subject !== undefined && s.baseline ? [s.subject / s.baseline] : []))
    .sort((a, b) => a - b);
  if (ratios.length === 0) return undefined;
  const mid = ratios.length >> 1;
  const median = ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
  return { min: ratios[0]!, median, max: ratios[ratios.length - 1]! };
}
