// `pnpm exec node bench/timeline.ts [seconds]`: the critical path of a PATCH of 1000 examples
// (`dataset-patch-1000`'s subject), interval by interval. The stack runs with its own
// OpenTelemetry SDK exporting to a collector on loopback here; each PATCH, one at a time, opens
// its own trace (a `traceparent` of the client's), and its spans (the gateway's HTTP and gRPC
// client spans, the dataset service's gRPC server span and its statements) are laid on the
// client's clock. Printed: the mean of each interval from the client's send to its answer,
// and when the work after the answer (the relay's publish, the audit entry) starts and ends.
// Where `bench/profile.ts` says what each process spends its CPU on, this says what a request
// waits for. The SDK's own cost makes every interval a little longer than without it; the
// shape is the stack's. Reported in bench/README.md ("The PATCH's critical path").
import { createServer } from "node:http";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import {
  createTestDatabase,
  listenLocal,
  startInfra,
  startStack,
  NO_RATE_LIMITS,
} from "@argus/testkit";
import { patchedDataset } from "./datasetPatch.ts";
import { Api } from "./datasets.ts";

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}
interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: WireSpan[] }[];
  }[];
}
/** A span on the client's clock, in ms. */
interface Span {
  service: string;
  name: string;
  kind: number;
  start: number;
  end: number;
}

// OTLP's SpanKind numbers.
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

const seconds = Number(process.argv[2] ?? "10");
const byTrace = new Map<string, Span[]>();
const ms = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;
const collector = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/v1/traces") {
      const raw = Buffer.concat(chunks);
      const text = (req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString();
      for (const rs of (JSON.parse(text) as ExportRequest).resourceSpans ?? []) {
        const name = rs.resource?.attributes?.find((a) => a.key === "service.name");
        const service = String(Object.values(name?.value ?? {})[0]);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) {
            const spans = byTrace.get(s.traceId) ?? [];
            byTrace.set(s.traceId, spans);
            spans.push({
              service,
              name: s.name,
              kind: s.kind,
              start: ms(s.startTimeUnixNano),
              end: ms(s.endTimeUnixNano),
            });
          }
      }
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
const port = await listenLocal(collector);

const { infra, stop: stopInfra } = await startInfra();
const db = await createTestDatabase(infra);
const stack = await startStack({
  databaseUrl: db.url,
  env: {
    ...NO_RATE_LIMITS,
    LOG_LEVEL: "warn",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "200",
    OTEL_BSP_MAX_QUEUE_SIZE: "65536",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_LOGS_EXPORTER: "none",
  },
});
/** Each measured PATCH: its trace, and when the client sent it and had its answer. */
const sent: { traceId: string; from: number; to: number }[] = [];
try {
  const { dataset, ids } = await patchedDataset(new Api(stack), "timeline");
  const url = `${stack.baseUrl}/v2/datasets/${encodeURIComponent(dataset.id)}/examples`;
  const headers = { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" };
  const now = () => performance.timeOrigin + performance.now();
  let flag = "b";
  const patch = async (measured: boolean) => {
    flag = flag === "a" ? "b" : "a";
    const body = JSON.stringify({ examples: ids.map((id) => ({ id, flag })) });
    const traceId = randomBytes(16).toString("hex");
    const traceparent = `00-${traceId}-${randomBytes(8).toString("hex")}-01`;
    const from = now();
    const res = await fetch(url, { method: "PATCH", headers: { ...headers, traceparent }, body });
    if (res.status !== 200) throw new Error(`PATCH -> ${res.status}`);
    await res.json();
    if (measured) sent.push({ traceId, from, to: now() });
  };
  for (const end = performance.now() + 2000; performance.now() < end;) await patch(false);
  for (const end = performance.now() + seconds * 1000; performance.now() < end;) await patch(true);
  // The last batches of spans, and the audit entries' (after the answers).
  await new Promise((r) => setTimeout(r, 2000));
} finally {
  await stack.stop();
  await db.drop();
  await stopInfra();
  collector.close();
}

/** The intervals of one PATCH, in order, from its spans; undefined if one is missing. */
function intervals(p: { traceId: string; from: number; to: number }) {
  const spans = byTrace.get(p.traceId) ?? [];
  const one = (f: (s: Span) => boolean) => spans.find(f);
  const root = one((s) => s.service === "gateway" && s.kind === SERVER);
  const call = one((s) => s.service === "gateway" && s.kind === CLIENT);
  const served = one((s) => s.service === "dataset" && s.kind === SERVER);
  const inDataset = (name: string) =>
    one((s) => s.service === "dataset" && s.kind === CLIENT && s.name === name);
  const begin = inDataset("begin");
  // The append with its projection, one statement (docs/architecture.md).
  const append = inDataset("appendToStream, dataset DatasetExamplesUpdated");
  const commit = inDataset("commit");
  const publish = one((s) => s.service === "dataset" && s.kind === PRODUCER);
  const audit = one((s) => s.service === "identity" && s.name === "project audit log");
  if (!root || !call || !served || !begin || !append || !commit) return undefined;
  const path: [string, number][] = [
    ["client sends → gateway's request starts", root.start - p.from],
    ["gateway: body, authentication, validation, the call's request", call.start - root.start],
    ["gRPC request to the dataset service", served.start - call.start],
    ["dataset: to BEGIN", begin.start - served.start],
    [
      "BEGIN, the dataset's lock, its version and examples (parsing meanwhile)",
      begin.end - begin.start,
    ],
    ["dataset: the events made", append.start - begin.end],
    // The append and COMMIT go out together (pipelined) and are answered in turn: each row
    // runs from the answer before it to its own.
    [
      "the append and its projection (the UPDATE of 1000 rows), to its answer",
      append.end - append.start,
    ],
    ["COMMIT, to its answer", commit.end - append.end],
    ["dataset: the answer", served.end - commit.end],
    ["gRPC answer to the gateway", call.end - served.end],
    ["gateway: the answer's JSON", root.end - call.end],
    ["gateway's answer → client has it (read and parsed)", p.to - root.end],
  ];
  const after: [string, number | undefined][] = [
    ["relay's publish starts", publish && publish.start - root.end],
    ["relay's publish acknowledged", publish && publish.end - root.end],
    ["identity's audit entry written", audit && audit.end - root.end],
  ];
  return { path, after, total: p.to - p.from };
}

// The SDK stamps a span's start from the wall clock in whole milliseconds (its duration is
// exact), so a gap between two spans is off by up to 1 ms in each PATCH; over many PATCHes,
// whose starts fall anywhere within a millisecond, the errors cancel in a mean, not in a median.
// The means are over the middle 80% of PATCHes by their time client to client (a GC pause or
// a stall of the machine in one PATCH says nothing of the path).
const complete = sent.map(intervals).filter((x) => x !== undefined);
if (complete.length === 0) throw new Error(`no complete trace among ${sent.length} PATCHes`);
const byTotal = [...complete].sort((a, b) => a.total - b.total);
const typical = byTotal.slice(Math.floor(byTotal.length * 0.1), Math.ceil(byTotal.length * 0.9));
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const row = (value: number, name: string) =>
  console.log(`${value.toFixed(2).padStart(8)}  ${name}`);
console.log(`${complete.length} of ${sent.length} PATCHes traced whole in ${seconds} s`);
console.log(`the critical path, mean ms over the middle 80% (${typical.length} PATCHes):`);
complete[0]!.path.forEach(([name], i) => row(mean(typical.map((r) => r.path[i]![1])), name));
row(mean(typical.map((r) => r.total)), "the PATCH, client to client (their sum)");
row(byTotal[Math.floor(byTotal.length / 2)]!.total, "the PATCH, client to client, median of all");
console.log("after the answer, mean ms from the gateway's answer:");
complete[0]!.after.forEach(([name], i) => {
  const xs = typical.map((r) => r.after[i]![1]).filter((x): x is number => x !== undefined);
  row(xs.length > 0 ? mean(xs) : NaN, name);
});
