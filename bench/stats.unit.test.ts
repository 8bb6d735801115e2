import { describe, expect, it } from "vitest";
import {
  formatTable,
  percentile,
  ratios,
  roundRatioSpread,
  summarize,
  type Sample,
} from "./stats.ts";

const sample = (latenciesMs: number[], elapsedMs: number, extra: Partial<Sample> = {}): Sample => ({
  latenciesMs,
  errors: 0,
  elapsedMs,
  cpuMs: {},
  ...extra,
});

describe("percentile", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it("is the nearest rank: the smallest value with at least p % of values at or below it", () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([1, 2], 99)).toBe(2);
  });

  it("is the smallest value at p 0 and the only value of one", () => {
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
  });

  it("is NaN for no values", () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("summarize", () => {
  it("pools latencies across samples, in any order, and divides requests by the summed time", () => {
    const s = summarize([sample([3, 1], 1000), sample([2, 4], 1000)]);
    expect(s).toMatchObject({ requests: 4, errors: 0, throughput: 2, p50Ms: 2, p99Ms: 4 });
  });

  it("adds up errors, including those of samples with no time", () => {
    const s = summarize([sample([1], 500, { errors: 2 }), sample([], 0, { errors: 1 })]);
    expect(s).toMatchObject({ requests: 1, errors: 3, throughput: 2 });
  });

  it("gives CPU microseconds per request for each process", () => {
    const s = summarize([
      sample([1, 1], 1000, { cpuMs: { gateway: 2, client: 1 } }),
      sample([1, 1], 1000, { cpuMs: { gateway: 6 } }),
    ]);
    expect(s.cpuUsPerRequest).toEqual({ gateway: 2000, client: 250 });
  });

  it("reports zero throughput and NaN latency when nothing was measured", () => {
    const s = summarize([]);
    expect(s.throughput).toBe(0);
    expect(s.p50Ms).toBeNaN();
  });
});

describe("ratios", () => {
  it("divides the subject by the baseline", () => {
    const subject = summarize([sample([2, 2, 8], 3000)]);
    const baseline = summarize([sample([1, 1, 1, 1, 1, 1, 4], 1000)]);
    expect(ratios(subject, baseline)).toEqual({ throughput: 1 / 7, p50: 2, p99: 2 });
  });
});

describe("formatTable", () => {
  it("aligns one row per target under a header", () => {
    const table = formatTable([
      { name: "stack", summary: summarize([sample([1.234], 1000, { cpuMs: { gateway: 1 } })]) },
      { name: "baseline", summary: summarize([sample([0.5, 0.5], 1000)]) },
    ]);
    expect(table.split("\n")).toEqual([
      "target    requests  errors  req/s  p50 ms  p99 ms  CPU µs/req",
      "stack            1       0      1    1.23    1.23  gateway 1000",
      "baseline         2       0      2    0.50    0.50",
    ]);
  });
});

describe("roundRatioSpread", () => {
  const round = (n: number, target: string, requests: number) => ({
    round: n,
    target,
    summary: summarize([
      sample(
        Array.from({ length: requests }, () => 1),
        1000,
      ),
    ]),
  });

  it("is the subject's throughput over the baseline's in each round: lowest, median, highest", () => {
    const perRound = [
      round(1, "stack", 80),
      round(1, "floor", 100),
      round(2, "floor", 100),
      round(2, "stack", 60),
      round(3, "stack", 90),
      round(3, "floor", 100),
      round(3, "third", 10),
    ];
    expect(roundRatioSpread(perRound, "stack", "floor")).toEqual({
      min: 0.6,
      median: 0.8,
      max: 0.9,
    });
  });

  it("takes the middle two's mean for an even count, and leaves out a round missing a side", () => {
    const perRound = [
      round(1, "stack", 50),
      round(1, "floor", 100),
      round(2, "stack", 70),
      round(2, "floor", 100),
      round(3, "stack", 99),
    ];
    expect(roundRatioSpread(perRound, "stack", "floor")).toEqual({
      min: 0.5,
      median: 0.6,
      max: 0.7,
    });
  });

  it("is undefined with no round that ran both, or a baseline that answered nothing", () => {
    expect(roundRatioSpread([], "stack", "floor")).toBeUndefined();
    expect(roundRatioSpread([round(1, "stack", 5)], "stack", "floor")).toBeUndefined();
    expect(
      roundRatioSpread([round(1, "stack", 5), round(1, "floor", 0)], "stack", "floor"),
    ).toBeUndefined();
  });
});
