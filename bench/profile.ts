// `pnpm exec node bench/profile.ts [seconds] [space|datasets|patch|taskrun|create]`: where the processes
// spend their CPU on GET /v2/spaces/{id} (default), on a page of 50 datasets out of 200 of 10
// examples each (`datasets`, the peer benchmark's list), on PATCHes of all 1000 examples of a
// dataset, one at a time (`patch`, `dataset-patch-1000`'s subject), or on evaluation task runs
// over 1000 experiment runs, triggered and polled one at a time (`taskrun`, `task-run-1000`'s
// subject), or on creates of datasets of 1000 examples of ~8 KiB each, one at a time (`create`,
// `dataset-create-8mib`'s subject), with a warm principal cache. Each process runs with --cpu-prof; after a
// closed-loop load the stack stops, Node writes the profiles, and the self time is summed per
// function and per package. Reported in bench/README.md ("Where the time goes").
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, startInfra, startStack, NO_RATE_LIMITS } from "@argus/testkit";
import { exampleIds } from "./datasetPatch.ts";
import { text } from "./datasetCreate.ts";
import { Api, createDataset } from "./datasets.ts";
import { runLoad } from "./load.ts";
import { runTask, seedEvaluationTask } from "./taskRun.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const seconds = Number(process.argv[2] ?? "10");
const subject = process.argv[3] ?? "space";
if (!["space", "datasets", "patch", "taskrun", "create"].includes(subject))
  throw new Error(`no such subject: ${subject}`);
const dir = mkdtempSync(join(tmpdir(), "argus-prof-"));
const { infra, stop: stopInfra } = await startInfra();
const db = await createTestDatabase(infra);
const stack = await startStack({
  databaseUrl: db.url,
  env: { ...NO_RATE_LIMITS, LOG_LEVEL: "warn", NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` },
});
const names = new Map(
  Object.entries(stack.processes).map(([name, proc]) => [String(proc.pid), name] as const),
);
let requests: number;
/**
 * The measured window on the monotonic clock, in µs: V8 stamps profile samples with the same
 * clock (CLOCK_MONOTONIC), so start-up and set-up are left out of what is reported.
 */
const window = { from: 0, to: 0 };
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
try {
  const headers = { authorization: `Bearer ${stack.apiKey}` };
  const listed = (await (await fetch(`${stack.baseUrl}/v2/spaces`, { headers })).json()) as {
    spaces: { id: string }[];
  };
  const spaceId = listed.spaces[0]!.id;
  let url = `${stack.baseUrl}/v2/spaces/${encodeURIComponent(spaceId)}`;
  if (subject === "datasets") {
    for (let i = 0; i < 200; i++) {
      const examples = Array.from({ length: 10 }, (_, e) => ({ question: `q${i}-${e}` }));
      const res = await fetch(`${stack.baseUrl}/v2/datasets`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ name: `profile-${i}`, space_id: spaceId, examples }),
      });
      if (res.status !== 201) throw new Error(`POST /v2/datasets -> ${res.status}`);
    }
    url = `${stack.baseUrl}/v2/datasets?space_id=${encodeURIComponent(spaceId)}&limit=50`;
  }
  if (subject === "patch") requests = await patchLoop(spaceId, headers);
  else if (subject === "taskrun") requests = await taskRunLoop();
  else if (subject === "create") requests = await createLoop(spaceId, headers);
  else {
    const target = { name: "stack", url, headers, pids: {} };
    const load = { concurrency: 16, maxRequests: 1_000_000, timeoutMs: 10_000 };
    await runLoad(target, { ...load, durationMs: 2000 });
    window.from = nowUs();
    const result = await runLoad(target, { ...load, durationMs: seconds * 1000 });
    window.to = nowUs();
    requests = result.latenciesMs.length;
  }
} finally {
  await stack.stop();
  await db.drop();
  await stopInfra();
}

/** PATCHes of all 1000 examples of a new dataset, one at a time, for 2 s of warmup + `seconds`. */
async function patchLoop(spaceId: string, headers: Record<string, string>): Promise<number> {
  const json = { ...headers, "content-type": "application/json" };
  const api = new Api(stack);
  const examples = Array.from({ length: 1000 }, (_, n) => ({ input: `q${n}`, flag: "b" }));
  const { id } = await createDataset(api, spaceId, "profile-patch", examples);
  const ids = await exampleIds(api, id);
  const path = `${stack.baseUrl}/v2/datasets/${encodeURIComponent(id)}/examples`;
  let n = 0;
  return measuredLoop(async () => {
    const flag = ++n % 2 ? "a" : "b";
    const body = JSON.stringify({ examples: ids.map((e) => ({ id: e, flag })) });
    const res = await fetch(path, { method: "PATCH", headers: json, body });
    if (res.status !== 200) throw new Error(`PATCH -> ${res.status}`);
    await res.arrayBuffer();
  });
}

/** Creates of a dataset of 1000 examples of 8000 characters each, one at a time. */
async function createLoop(spaceId: string, headers: Record<string, string>): Promise<number> {
  const json = { ...headers, "content-type": "application/json" };
  const examples = `[${Array.from({ length: 1000 }, (_, n) => JSON.stringify({ input: text(n, 8000) })).join(",")}]`;
  let n = 0;
  return measuredLoop(async () => {
    const body = `{"name":"profile-create-${++n}","space_id":${JSON.stringify(spaceId)},"examples":${examples}}`;
    const res = await fetch(`${stack.baseUrl}/v2/datasets`, {
      method: "POST",
      headers: json,
      body,
    });
    if (res.status !== 201) throw new Error(`POST /v2/datasets -> ${res.status}`);
    await res.arrayBuffer();
  });
}

/** `operation` one at a time: 2 s of warmup, then `seconds` in the measured window; the count. */
async function measuredLoop(operation: () => Promise<void>): Promise<number> {
  const until = async (end: number) => {
    let count = 0;
    for (; performance.now() < end; count++) await operation();
    return count;
  };
  await until(performance.now() + 2000);
  window.from = nowUs();
  const count = await until(performance.now() + seconds * 1000);
  window.to = nowUs();
  return count;
}

/** Task runs of 1000 experiment runs, one at a time, for 2 s of warmup + `seconds`. */
async function taskRunLoop(): Promise<number> {
  const api = new Api(stack);
  const { taskId } = await seedEvaluationTask(api);
  return measuredLoop(async () => {
    await runTask(api, taskId);
  });
}

/** Self time (ms) per key, from the sampled profile. */
function selfTimes(p: CpuProfile, keyOf: (n: ProfileNode) => string): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node || at < window.from || at > window.to) return;
    const k = keyOf(node);
    out.set(k, (out.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return out;
}

const packageOf = (n: ProfileNode): string => {
  const url = n.callFrame.url;
  if (url === "") return `(${n.callFrame.functionName || "native"})`;
  const mod = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1]!;
  if (url.startsWith("node:")) return url;
  const own = /\/(services|packages)\/([^/]+)\//.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
};
const functionOf = (n: ProfileNode): string =>
  `${n.callFrame.functionName || "(anonymous)"} ${packageOf(n)}:${n.callFrame.lineNumber + 1}`;

const top = (m: Map<string, number>, n: number, total: number) =>
  [...m.entries()]
    .filter(([k]) => !k.startsWith("(idle)") && k !== "((idle))")
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, ms]) => `  ${((ms / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
    .join("\n");

console.info(`${requests} requests in ${seconds} s measured (plus 2 s warmup)`);
for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const p = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
  const byPackage = selfTimes(p, packageOf);
  const total = [...byPackage.values()].reduce((a, b) => a + b, 0);
  const idle = byPackage.get("((idle))") ?? 0;
  const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1] ?? "";
  console.info(
    `\n${names.get(pid) ?? file}: ${(total - idle).toFixed(0)} ms busy of ${total.toFixed(0)} ms ` +
      `profiled in the measured ${seconds} s (${((total - idle) / requests).toFixed(2)} ms busy per request)`,
  );
  console.info(`by package:\n${top(byPackage, 12, total - idle)}`);
  console.info(`by function:\n${top(selfTimes(p, functionOf), 15, total - idle)}`);
}
console.info(`\nprofiles: ${dir}`);
