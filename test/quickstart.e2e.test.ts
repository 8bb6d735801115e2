import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { GATEWAY, SERVICE_REGISTRY } from "@argus/platform";
import { freePort } from "@argus/testkit";

const root = fileURLToPath(new URL("..", import.meta.url));

async function until(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  /** Why waiting on is pointless (the process is gone), if it is. */
  gone: () => string | undefined = () => undefined,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const reason = gone();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out: ${what}`);
}

interface Up {
  child: ChildProcess;
  /** Everything it printed so far. */
  out: () => string;
  exited: Promise<number | null>;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  base: string;
}

/**
 * `./argus up` on free ports, ready and announced. A port found free can be taken before
 * `up` binds it (another test's connection, its ephemeral port): then `up` exits at once,
 * naming EADDRINUSE, and starts again on other ports; any other exit or a timeout fails.
 */
async function upOnFreePorts(apiKey: string): Promise<Up> {
  for (let attempt = 1; ; attempt++) {
    const dataDir = await mkdtemp(join(tmpdir(), "argus-up-"));
    await chmod(dataDir, 0o755); // the postgres OS user must reach its data directory inside
    const [http, pg, nats, otlp] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ARGUS_DATA_DIR: dataDir,
      ARGUS_HTTP_PORT: String(http),
      ARGUS_OTLP_GRPC_PORT: String(otlp),
      ARGUS_LOCAL_PG_PORT: String(pg),
      ARGUS_LOCAL_NATS_PORT: String(nats),
      ARGUS_INIT_API_KEY: apiKey,
    };
    delete env.DATABASE_URL;
    delete env.NATS_URL;
    const child = spawn(join(root, "argus"), ["up"], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => resolve((exitCode = code))),
    );
    const base = `http://127.0.0.1:${http}`;
    try {
      await until(
        "ready and announced",
        async () => out.includes("Argus is up") && (await fetch(`${base}/readyz`)).status === 200,
        90_000,
        () => (exitCode === undefined ? undefined : `\`./argus up\` exited with ${exitCode}`),
      );
      return { child, out: () => out, exited, env, dataDir, base };
    } catch (err) {
      child.kill("SIGINT");
      await exited;
      await rm(dataDir, { recursive: true, force: true });
      if (exitCode !== undefined && out.includes("EADDRINUSE") && attempt < 3) continue;
      throw new Error(`${(err as Error).message}\n${out}`, { cause: err });
    }
  }
}

it("`./argus up` brings up Postgres, NATS and every service, serves the API, and stops cleanly on Ctrl-C", async () => {
  const apiKey = `ak-quickstart-${"q".repeat(32)}`;
  const { child, out: printed, exited, env, dataDir, base } = await upOnFreePorts(apiKey);
  let served = false;
  try {
    const out = printed();
    expect(out).toContain(`${base}/v2`);
    expect(out).toContain(apiKey);
    // Every process of the service registry was migrated and started.
    for (const d of SERVICE_REGISTRY) {
      expect(out).toContain(`migrate: ${d.name} (schema ${d.schema}) is up to date`);
      expect(out).toMatch(new RegExp(`${d.name}\\s*\\|.*${d.name} listening`));
    }
    expect(out).toMatch(new RegExp(`${GATEWAY.name}\\s*\\|.*gateway listening`));
    // Nothing it started listens beyond loopback (services, probes, gateway, Postgres, NATS).
    const listeners = listenersOf(descendants(child.pid!));
    expect(listeners.length).toBeGreaterThanOrEqual(2 * SERVICE_REGISTRY.length + 3);
    for (const address of listeners) expect(address).toMatch(/^(127\.0\.0\.1|\[::1\]):\d+$/);

    const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const orgs = (await (await fetch(`${base}/v2/organizations`, { headers })).json()) as {
      organizations: { id: string }[];
    };
    const res = await fetch(`${base}/v2/spaces`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "from the quick start",
        organization_id: orgs.organizations[0]!.id,
      }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      name: "from the quick start",
      description: "",
      is_private: false,
    });
    served = true;
  } finally {
    child.kill("SIGINT");
    // After a failure above, its own message is the one to see, not this.
    const code = await exited;
    if (served) expect(code, printed().slice(-5000)).toBe(0);
  }
  try {
    // Break-glass on the stopped installation: it starts the kept Postgres for the moment.
    const minted = spawnSync(join(root, "argus"), ["admin-key", "admin@argus.local"], {
      cwd: root,
      env,
      encoding: "utf8",
    });
    expect(minted.status, minted.stderr).toBe(0);
    expect(minted.stdout.trim().split("\n").at(-1)).toMatch(/^ak-argus-/);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  // Nothing is left listening.
  await expect(fetch(`${base}/healthz`)).rejects.toThrow();
}, 150_000);

/** The process and every process below it. */
function descendants(pid: number): Set<number> {
  const all = new Set([pid]);
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of table)
      if (all.has(parent) && !all.has(child)) grew = all.add(child).size > 0;
  }
  return all;
}

/** Local addresses of the TCP listeners these processes hold. */
function listenersOf(pids: Set<number>): string[] {
  return execFileSync("ss", ["-ltnpH"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((m) => pids.has(Number(m[1]))))
    .map((line) => line.trim().split(/\s+/)[3]!);
}
