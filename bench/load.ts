import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { cpuTimes } from "./cpuTime.ts";
import type { Sample } from "./stats.ts";

export interface Target {
  name: string;
  /** Must be on 127.0.0.1: the benchmark never sends load anywhere else. */
  url: string;
  headers: Record<string, string>;
  /** A POST with this JSON body (the public API lists spans with POST); a GET without. */
  body?: string;
  /** The processes serving it, by name, whose CPU time is measured. */
  pids: Record<string, number>;
}

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  /** Stops early once this many requests were sent. */
  maxRequests: number;
  /** A request still unanswered after this long counts as an error. */
  timeoutMs: number;
}

export interface LoadResult extends Sample {
  /** Error counts by cause: `status 500`, `ECONNRESET`, `timeout`, ... */
  errorKinds: Record<string, number>;
}

/** Closed loop: `concurrency` workers, each sending its next request when the last one answered. */
export async function runLoad(target: Target, opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(target.url);
  if (url.hostname !== "127.0.0.1") throw new Error(`refusing to load ${url.host}: not 127.0.0.1`);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latenciesMs: number[] = [];
  const errorKinds: Record<string, number> = {};
  const fail = (kind: string) => (errorKinds[kind] = (errorKinds[kind] ?? 0) + 1);
  let sent = 0;
  const cpuBefore = cpuTimes(target.pids);
  const started = performance.now();
  const deadline = started + opts.durationMs;

  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      let settled = false;
      // Counts each request exactly once, whichever of its events comes first.
      const settle = (error: string | null) => {
        if (settled) return;
        settled = true;
        if (error === null) latenciesMs.push(performance.now() - t0);
        else fail(error);
        resolve();
      };
      const req = request(
        url,
        {
          agent,
          timeout: opts.timeoutMs,
          ...(target.body === undefined
            ? { headers: target.headers }
            : {
                method: "POST",
                headers: { ...target.headers, "content-type": "application/json" },
              }),
        },
        (res) => {
          res.resume();
          res.once("end", () => settle(res.statusCode === 200 ? null : `status ${res.statusCode}`));
          res.once("error", (err) => settle(errorCode(err)));
        },
      );
      req.once("timeout", () => req.destroy(new Error("timeout")));
      req.once("error", (err) => settle(errorCode(err)));
      req.end(target.body);
    });

  const worker = async () => {
    while (performance.now() < deadline && sent < opts.maxRequests) {
      sent++;
      await once();
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = performance.now() - started;
  const cpuMs = Object.fromEntries(
    Object.entries(cpuTimes(target.pids)).map(([name, ms]) => [name, ms - cpuBefore[name]!]),
  );
  agent.destroy();
  const errors = Object.values(errorKinds).reduce((a, b) => a + b, 0);
  return { latenciesMs, errors, elapsedMs, cpuMs, errorKinds };
}

function errorCode(err: Error): string {
  return "code" in err && typeof err.code === "string" ? err.code : err.message;
}
