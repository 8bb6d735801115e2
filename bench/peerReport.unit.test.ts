import { describe, expect, it } from "vitest";
import {
  DEFAULT_PEER_SIZES,
  formatPeerTable,
  peerRow,
  peerSizes,
  snapshotDifferences,
  type PeerSnapshot,
} from "./peerReport.ts";
import type { Summary } from "./stats.ts";

describe("peerSizes", () => {
  it("is issue 31's sizes when nothing is set", () => {
    expect(peerSizes({})).toEqual(DEFAULT_PEER_SIZES);
    expect(DEFAULT_PEER_SIZES).toMatchObject({
      datasets: 200,
      page: 50,
      createExamples: 1000,
      spans: 100_000,
      workers: [1, 16],
      authModes: ["on", "off"],
    });
  });

  it("takes each size from its variable, lists comma-separated, blanks ignored", () => {
    const sizes = peerSizes({
      PEER_DATASETS: "20",
      PEER_PAGE: " 10 ",
      PEER_EXAMPLES_PAGE: "10",
      PEER_SPANS: "400",
      PEER_SPANS_PER_REQUEST: "100",
      PEER_WORKERS: "1, 4",
      PEER_AUTH: "off",
      PEER_CREATE_EXAMPLES: "",
    });
    expect(sizes).toMatchObject({
      datasets: 20,
      page: 10,
      examplesPage: 10,
      spans: 400,
      spansPerRequest: 100,
      workers: [1, 4],
      authModes: ["off"],
      createExamples: 1000,
    });
  });

  it("refuses what is not a positive integer or an auth mode", () => {
    expect(() => peerSizes({ PEER_DATASETS: "0" })).toThrow(
      /PEER_DATASETS must be a positive integer/,
    );
    expect(() => peerSizes({ PEER_DATASETS: "1.5" })).toThrow(/positive integer/);
    expect(() => peerSizes({ PEER_WORKERS: "1,x" })).toThrow(/PEER_WORKERS/);
    expect(() => peerSizes({ PEER_AUTH: "on,maybe" })).toThrow(/"maybe" is neither on nor off/);
  });

  it("keeps the examples to one page, the page within the datasets and whole exports", () => {
    expect(peerSizes({ PEER_EXAMPLES_PAGE: "50", PEER_PAGE: "50" }).examplesPage).toBe(50);
    expect(() => peerSizes({ PEER_EXAMPLES_PAGE: "51" })).toThrow(/must fit one page/);
    expect(peerSizes({ PEER_DATASETS: "50" }).datasets).toBe(50);
    expect(() => peerSizes({ PEER_DATASETS: "49" })).toThrow(/at most PEER_DATASETS/);
    expect(() => peerSizes({ PEER_SPANS: "100001" })).toThrow(/multiple of PEER_SPANS_PER_REQUEST/);
    expect(peerSizes({ PEER_SPANS: "50", PEER_SPANS_PER_REQUEST: "50" }).spans).toBe(50);
    expect(() => peerSizes({ PEER_SPANS: "49", PEER_SPANS_PER_REQUEST: "49" })).toThrow(
      /must fill a page/,
    );
  });
});

describe("snapshotDifferences", () => {
  const snapshot: PeerSnapshot = {
    projectName: "peer-project",
    datasetNames: ["d2", "d1", "d0"],
    datasetPage: ["d2", "d1"],
    examples: [
      { question: "q1", answer: "a1", n: 1 },
      { question: "q2", answer: "a2", n: 2 },
    ],
    prompt: { model: "gpt-4o-mini", content: "version 3" },
  };

  it("is empty for the same data, however it was built", () => {
    expect(snapshotDifferences(snapshot, structuredClone(snapshot))).toEqual([]);
    const spans = { ...snapshot, spanPage: ["ab", "cd"] };
    expect(snapshotDifferences(spans, structuredClone(spans))).toEqual([]);
  });

  it("names each thing that differs", () => {
    const other: PeerSnapshot = {
      ...structuredClone(snapshot),
      datasetNames: ["d2", "d1"],
      examples: [snapshot.examples[0]!, { question: "q2", answer: "a2", n: 3 }],
      prompt: { model: "gpt-4o-mini", content: "version 2" },
    };
    const differences = snapshotDifferences(snapshot, other);
    expect(differences.map((d) => d.split(":")[0])).toEqual([
      "dataset count",
      "dataset names",
      "examples",
      "prompt latest version",
    ]);
    expect(differences[0]).toBe("dataset count: 3 vs 2");
  });

  it("finds the same names in another order, and a span page on one side only", () => {
    const reordered = { ...snapshot, datasetPage: ["d1", "d2"] };
    expect(snapshotDifferences(snapshot, reordered)).toEqual([
      'dataset page: ["d2","d1"] vs ["d1","d2"]',
    ]);
    expect(snapshotDifferences(snapshot, { ...snapshot, spanPage: ["ab"] })).toEqual([
      'span page: undefined vs ["ab"]',
    ]);
  });
});

const summary = (throughput: number, p50Ms: number, extra: Partial<Summary> = {}): Summary => ({
  requests: 100,
  errors: 0,
  throughput,
  p50Ms,
  p99Ms: p50Ms * 2,
  cpuUsPerRequest: { gateway: 300, identity: 200, client: 50, postgres: 90, machine: 700 },
  ...extra,
});

describe("peerRow", () => {
  const row = (argus: Summary, phoenix: Summary) =>
    peerRow({ auth: "on", operation: "read one project", workers: 1, argus, phoenix });

  it("is met at exactly twice the throughput and half the p50", () => {
    const r = row(summary(200, 5), summary(100, 10));
    expect(r).toMatchObject({ throughput: 2, p50: 0.5, p99: 0.5, met: true });
  });

  it("is not met just short of either goal", () => {
    expect(row(summary(199.9, 5), summary(100, 10)).met).toBe(false);
    expect(row(summary(200, 5.01), summary(100, 10)).met).toBe(false);
  });

  it("is not met with an error on either side, however fast", () => {
    expect(row(summary(1000, 1, { errors: 1 }), summary(100, 10)).met).toBe(false);
    expect(row(summary(1000, 1), summary(100, 10, { errors: 1 })).met).toBe(false);
  });
});

describe("formatPeerTable", () => {
  it("has a header and one aligned line per row, CPU without client, Postgres or machine, the verdict last", () => {
    const rows = [
      peerRow({
        auth: "on",
        operation: "read one project",
        workers: 16,
        argus: summary(2400, 6),
        phoenix: summary(800, 19),
      }),
      peerRow({
        auth: "off",
        operation: "100000 spans until queryable",
        workers: 1,
        argus: summary(0.5, 2000),
        phoenix: summary(0.001, 1_000_000),
      }),
      peerRow({
        auth: "off",
        operation: "read one project",
        workers: 1,
        argus: summary(100, 10, { errors: 2 }),
        phoenix: summary(100, 10),
      }),
    ];
    const lines = formatPeerTable(rows).split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^phoenix auth +operation +workers +Argus op\/s/);
    expect(lines[1]).toMatch(
      /^on +read one project +16 +2400 +800 +6\.00 ms +19\.00 ms +0\.50 ms +0\.50 ms +3\.00x +0\.32x +0\.32x +met$/,
    );
    expect(lines[2]).toMatch(
      / 0\.500 +0\.00100 +2\.0 s +1000\.0 s .* 500x +0\.0020x +0\.0020x +met$/,
    );
    expect(lines[3]).toMatch(/errors 2\/0$/);
    // Every line ends its numeric columns at the same place.
    const ends = lines.map((l) => l.indexOf("x  "));
    expect(new Set(ends.slice(1)).size).toBe(1);
  });
});
