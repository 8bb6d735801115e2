// `pnpm exec node bench/profile.ts [seconds] [space|datasets]`: where the processes spend their
// CPU on GET /v2/spaces/{id} (default), or on a page of 50 datasets out of 200 of 10 examples
// each (`datasets`, the peer benchmark's list), with a warm principal cache. Each process runs with --cpu-prof; after a
// closed-loop load the stack stops, Node writes the profiles, and the self time is summed per
// function and per package. Reported in bench/README.md ("Where the time goes").
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, startInfra, startStack, NO_RATE_LIMITS } from "@argus/testkit";
import { runLoad } from "./load.ts";

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
if (subject !== "space" && subject !== "datasets") throw new Error(`no such subject: ${subject}`);
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
  const target = { name: "stack", url, headers, pids: {} };
  const load = { concurrency: 16, maxRequests: 1_000_000, timeoutMs: 10_000 };
  await runLoad(target, { ...load, durationMs: 2000 });
  const result = await runLoad(target, { ...load, durationMs: seconds * 1000 });
  requests = result.latenciesMs.length;
} finally {
  await stack.stop();
  await db.drop();
  await stopInfra();
}

/** Self time (ms) per key, from the sampled profile. */
function selfTimes(p: CpuProfile, keyOf: (n: ProfileNode) => string): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
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
      "profiled (start-up included; CPU per request is ./argus bench's)",
  );
  console.info(`by package:\n${top(byPackage, 12, total - idle)}`);
  console.info(`by function:\n${top(selfTimes(p, functionOf), 15, total - idle)}`);
}
console.info(`\nprofiles: ${dir}`);
