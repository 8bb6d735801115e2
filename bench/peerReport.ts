// The pure parts of the peer benchmark (bench/peer.ts): its sizes, the check that both systems
// hold the same data, and the table of Argus/Phoenix ratios.
import { isDeepStrictEqual } from "node:util";
import type { Summary } from "./stats.ts";
import { NOT_A_SERVER_PROCESS } from "./cpuTime.ts";

/** What the benchmark seeds and writes; the defaults are issue 31's, the environment overrides. */
export interface PeerSizes {
  /** Datasets listed (a page of `page` out of these). */
  datasets: number;
  /** Examples of each listed dataset but the first, which holds `examplesPage`. */
  datasetExamples: number;
  /** The page of datasets, and of spans. */
  page: number;
  /** Examples of the dataset whose examples page is read (all of them, one page). */
  examplesPage: number;
  /** Examples of each dataset created by the create operation. */
  createExamples: number;
  /** Spans sent by one ingest operation; the first one's project is the one the span page reads. */
  spans: number;
  /** Spans per OTLP request. */
  spansPerRequest: number;
  /** Versions of the prompt whose latest is read. */
  promptVersions: number;
  /** Ingest operations per system, worker count and auth mode (each is `spans` spans). */
  ingestRounds: number;
  /** Worker counts every operation runs at. */
  workers: number[];
  /** Phoenix's authentication in each pass, in order. */
  authModes: ("on" | "off")[];
}

export const DEFAULT_PEER_SIZES: Readonly<PeerSizes> = {
  datasets: 200,
  datasetExamples: 10,
  page: 50,
  examplesPage: 50,
  createExamples: 1000,
  spans: 100_000,
  // As an OpenTelemetry BatchSpanProcessor exports (at most 512 spans a batch by default).
  spansPerRequest: 500,
  promptVersions: 10,
  ingestRounds: 1,
  workers: [1, 16],
  authModes: ["on", "off"],
};

/** Environment variable of each size (`PEER_SPANS=2000` for a smoke run). */
const PEER_SIZE_VARIABLES: Readonly<Record<keyof PeerSizes, string>> = {
  datasets: "PEER_DATASETS",
  datasetExamples: "PEER_DATASET_EXAMPLES",
  page: "PEER_PAGE",
  examplesPage: "PEER_EXAMPLES_PAGE",
  createExamples: "PEER_CREATE_EXAMPLES",
  spans: "PEER_SPANS",
  spansPerRequest: "PEER_SPANS_PER_REQUEST",
  promptVersions: "PEER_PROMPT_VERSIONS",
  ingestRounds: "PEER_INGEST_ROUNDS",
  workers: "PEER_WORKERS",
  authModes: "PEER_AUTH",
};

const positiveInteger = (name: string, text: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, not "${text}"`);
  return n;
};

/** The sizes from `env` over the defaults; throws on a value that is not one. */
export function peerSizes(env: Readonly<Record<string, string | undefined>>): PeerSizes {
  const sizes: PeerSizes = { ...DEFAULT_PEER_SIZES };
  for (const [key, name] of Object.entries(PEER_SIZE_VARIABLES) as [keyof PeerSizes, string][]) {
    const text = env[name]?.trim();
    if (!text) continue;
    if (key === "workers") {
      sizes.workers = text.split(",").map((w) => positiveInteger(name, w.trim()));
    } else if (key === "authModes") {
      sizes.authModes = text.split(",").map((m) => {
        const mode = m.trim();
        if (mode !== "on" && mode !== "off")
          throw new Error(`${name}: "${mode}" is neither on nor off`);
        return mode;
      });
    } else {
      sizes[key] = positiveInteger(name, text);
    }
  }
  if (sizes.examplesPage > sizes.page) {
    throw new Error(`PEER_EXAMPLES_PAGE (${sizes.examplesPage}) must fit one page (${sizes.page})`);
  }
  if (sizes.page > sizes.datasets) {
    throw new Error(`PEER_PAGE (${sizes.page}) must be at most PEER_DATASETS (${sizes.datasets})`);
  }
  if (sizes.spans % sizes.spansPerRequest !== 0) {
    throw new Error(
      `PEER_SPANS (${sizes.spans}) must be a multiple of PEER_SPANS_PER_REQUEST (${sizes.spansPerRequest})`,
    );
  }
  if (sizes.spans < sizes.page) {
    throw new Error(`PEER_SPANS (${sizes.spans}) must fill a page (${sizes.page})`);
  }
  return sizes;
}

/** One example as both systems hold it: Argus's fields, Phoenix's input/output/metadata. */
export interface PeerExample {
  question: string;
  answer: string;
  n: number;
}

/** What each system answers about the seeded data, reduced to what both must agree on. */
export interface PeerSnapshot {
  projectName: string;
  /** Every dataset's name, newest first (each system's list order). */
  datasetNames: string[];
  /** The first page of the dataset list, by name. */
  datasetPage: string[];
  /** The examples page, in each system's order (oldest first). */
  examples: PeerExample[];
  /** The prompt's latest version. */
  prompt: { model: string; content: string };
  /** The span page: span ids, newest start first; absent before the spans are in. */
  spanPage?: string[];
}

/** How two snapshots differ, one line a difference; empty when they hold the same data. */
export function snapshotDifferences(a: PeerSnapshot, b: PeerSnapshot): string[] {
  const differences: string[] = [];
  const compare = (what: string, x: unknown, y: unknown) => {
    if (!isDeepStrictEqual(x, y)) {
      differences.push(
        `${what}: ${JSON.stringify(x)?.slice(0, 200)} vs ${JSON.stringify(y)?.slice(0, 200)}`,
      );
    }
  };
  compare("project name", a.projectName, b.projectName);
  compare("dataset count", a.datasetNames.length, b.datasetNames.length);
  compare("dataset names", a.datasetNames, b.datasetNames);
  compare("dataset page", a.datasetPage, b.datasetPage);
  compare("example count", a.examples.length, b.examples.length);
  compare("examples", a.examples, b.examples);
  compare("prompt latest version", a.prompt, b.prompt);
  if (a.spanPage !== undefined || b.spanPage !== undefined) {
    compare("span page", a.spanPage, b.spanPage);
  }
  return differences;
}

/** One measured operation at one worker count: Argus's and Phoenix's pooled rounds. */
export interface PeerMeasurement {
  auth: "on" | "off";
  operation: string;
  workers: number;
  argus: Summary;
  phoenix: Summary;
}

/** Issue 31's P1: Argus at least twice Phoenix's throughput and at most half its p50. */
const PEER_GOAL = { throughput: 2, p50: 0.5 } as const;

export interface PeerRow {
  auth: "on" | "off";
  operation: string;
  workers: number;
  argus: Summary;
  phoenix: Summary;
  throughput: number;
  p50: number;
  p99: number;
  met: boolean;
}

export function peerRow(m: PeerMeasurement): PeerRow {
  const throughput = m.argus.throughput / m.phoenix.throughput;
  const p50 = m.argus.p50Ms / m.phoenix.p50Ms;
  const p99 = m.argus.p99Ms / m.phoenix.p99Ms;
  const clean = m.argus.errors === 0 && m.phoenix.errors === 0;
  return {
    ...m,
    throughput,
    p50,
    p99,
    met: clean && throughput >= PEER_GOAL.throughput && p50 <= PEER_GOAL.p50,
  };
}

// Three significant digits below 1: an ingest of 100 000 spans into Phoenix is ~0.001 op/s.
const rate = (perSecond: number) =>
  perSecond >= 100
    ? perSecond.toFixed(0)
    : perSecond >= 1
      ? perSecond.toFixed(1)
      : perSecond.toPrecision(3);
const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${v.toFixed(2)} ms`);
const ratio = (v: number) =>
  Number.isFinite(v)
    ? `${v >= 100 ? v.toFixed(0) : v >= 0.01 ? v.toFixed(2) : v.toPrecision(2)}x`
    : "-";
/** CPU per operation of a system's server processes (Postgres and the client not counted). */
const cpu = (s: Summary) => {
  const us = Object.entries(s.cpuUsPerRequest)
    .filter(([name]) => !NOT_A_SERVER_PROCESS.has(name))
    .reduce((sum, [, v]) => sum + v, 0);
  return Number.isFinite(us) ? ms(us / 1000) : "-";
};

/**
 * One fixed-width table of every row: each side's throughput, p50 and CPU per operation, the
 * Argus/Phoenix ratios and whether P1 is met (errors on either side: not met).
 */
export function formatPeerTable(rows: readonly PeerRow[]): string {
  const header = [
    "phoenix auth",
    "operation",
    "workers",
    "Argus op/s",
    "Phoenix op/s",
    "Argus p50",
    "Phoenix p50",
    "Argus CPU/op",
    "Phoenix CPU/op",
    "throughput A/P",
    "p50 A/P",
    "p99 A/P",
    "P1 (≥2x, ≤0.5x)",
  ];
  const cells = rows.map((r) => [
    r.auth,
    r.operation,
    String(r.workers),
    rate(r.argus.throughput),
    rate(r.phoenix.throughput),
    ms(r.argus.p50Ms),
    ms(r.phoenix.p50Ms),
    cpu(r.argus),
    cpu(r.phoenix),
    ratio(r.throughput),
    ratio(r.p50),
    ratio(r.p99),
    r.argus.errors + r.phoenix.errors > 0
      ? `errors ${r.argus.errors}/${r.phoenix.errors}`
      : r.met
        ? "met"
        : "NOT met",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const text = (i: number) => i <= 1 || i === header.length - 1;
  const line = (c: string[]) =>
    c
      .map((v, i) => (text(i) ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [header, ...cells].map(line).join("\n");
}
