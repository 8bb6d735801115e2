import { randomUUID } from "node:crypto";
import { createServer, connect as tcpConnect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { freePort, spawnProcess, type SpawnedProcess } from "@argus/testkit";
import type { Api } from "./support.ts";

/** A gateway process of the test's own, with its log lines. */
export interface ExtraGateway {
  url: string;
  process: SpawnedProcess;
  log: string[];
}

/** One more gateway on the stack (its NATS identity and keys), with `env` on top. */
export async function spawnGateway(
  api: Api,
  name: string,
  env: Record<string, string> = {},
): Promise<ExtraGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log: string[] = [];
  const child = await spawnProcess({
    name,
    command: process.execPath,
    args: ["services/gateway/src/main.ts"],
    cwd: fileURLToPath(new URL("../", import.meta.url)),
    env: {
      ...api.stack.env,
      ...api.stack.processEnv.gateway,
      ...env,
      ARGUS_HTTP_PORT: String(port),
      // A second gateway beside the stack's: no OTLP/gRPC listener of its own.
      ARGUS_OTLP_GRPC_PORT: "0",
      ARGUS_FLIGHT_PORT: "0",
    },
    readyWhen: async () => (await fetch(`${url}/readyz`)).ok,
    timeoutMs: 60_000,
    onLine: (line) => log.push(line.slice(name.length + 3)),
  });
  return { url, process: child, log };
}

/** GET `path` on `base` with `key`; the request id is the caller's, to find its log line. */
export async function get(
  base: string,
  key: string,
  path = "/v2/spaces",
  headers: Record<string, string> = {},
): Promise<{ status: number; requestId: string }> {
  const requestId = randomUUID();
  const res = await fetch(`${base}${path}`, {
    headers: { authorization: `Bearer ${key}`, "x-request-id": requestId, ...headers },
  });
  await res.arrayBuffer();
  return { status: res.status, requestId };
}

/** The `principal_cache` field of the gateway's access log line for the request, if any. */
export function cacheOutcome(log: readonly string[], requestId: string): string | undefined {
  for (const line of log) {
    if (!line.startsWith("{") || !line.includes(requestId)) continue;
    const l = JSON.parse(line) as { msg?: string; request_id?: string; principal_cache?: string };
    if (l.msg === "request" && l.request_id === requestId) return l.principal_cache ?? "none";
  }
  return undefined;
}

/** Polls until `f` holds (at most `ms`). */
export async function eventually(f: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Requests `key` on `base` until the gateway answers one from its cache: its lease is held and
 * the key's principal is in. Returns the log line's outcome of the last request.
 */
export async function untilCached(
  gateway: { url: string; log: string[] },
  key: string,
  path = "/v2/spaces",
): Promise<void> {
  await eventually(async () => {
    const r = await get(gateway.url, key, path);
    if (r.status !== 200) throw new Error(`${path} with the key: ${r.status}`);
    // The access log line is written when the response closes, a moment after it arrived.
    await eventually(() => cacheOutcome(gateway.log, r.requestId) !== undefined, 2_000);
    return cacheOutcome(gateway.log, r.requestId) === "hit";
  }, 20_000);
}

/**
 * A TCP proxy in front of NATS that the test can cut (existing connections reset, new ones
 * refused) and restore: a partition of one process from the bus, the others unaffected.
 */
export interface CuttableProxy {
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableProxy(natsUrl: string): Promise<CuttableProxy> {
  const target = new URL(natsUrl);
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = tcpConnect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `nats://127.0.0.1:${port}`,
    cut() {
      cut = true;
      for (const s of sockets) s.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
