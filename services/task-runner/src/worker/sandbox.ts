import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ItemError, verdictOf, type CustomCodeConfig, type Verdict } from "./managedEvaluators.ts";

const RUNNER = fileURLToPath(new URL("../../sandbox/runner.py", import.meta.url));

/**
 * How a CUSTOM evaluator's process is kept apart (services/task-runner/README.md):
 * `namespace` — its own network namespace (no interface but loopback) plus the audit hooks;
 * `hooks` — Python audit hooks only (no sockets, processes, native code, file writes);
 * `off` — limits only, for trusted code that needs the network.
 */
export type Isolation = "namespace" | "hooks" | "off";

export interface SandboxOptions {
  python: string;
  isolation: Isolation;
  /** Wall time of one item; the process is killed past it. */
  timeoutMs: number;
  /** Address space of one evaluator process. */
  memoryBytes: number;
  /** Bytes one item's answer may take. */
  outputBytes: number;
  /** Processes of one evaluator in one run (items evaluated at once). */
  processes: number;
  /** The audit hooks; default: on unless isolation is off (tests turn them off alone). */
  hooks?: boolean;
}

export interface Sandbox {
  evaluate(values: Record<string, string>): Promise<Verdict>;
  close(): void;
}

/** Items one process evaluates before it is replaced: bounds what its CPU backstop allows. */
const ITEMS_PER_PROCESS = 200;
const STDERR_KEPT = 2_000;

/**
 * The isolation `auto` resolves to on this host: a network namespace when an unprivileged
 * `unshare` works here (a container without user namespaces refuses it), else the hooks.
 */
export function resolveIsolation(setting: string, python: string): Isolation {
  if (setting === "hooks" || setting === "off") return setting;
  const probe = spawnSync("unshare", ["--net", "--map-root-user", "--", python, "-c", "pass"], {
    env: {},
    timeout: 10_000,
  });
  if (probe.status === 0) return "namespace";
  if (setting === "namespace")
    throw new Error(
      `ARGUS_TASK_SANDBOX_ISOLATION=namespace, but unshare cannot make a network namespace here: ${
        probe.error?.message ?? probe.stderr.toString().trim()
      }`,
    );
  return "hooks";
}

interface Pending {
  resolve(message: Record<string, unknown>): void;
  reject(err: ItemError): void;
}

/** One evaluator process: started with the code, then one item at a time. */
class Host {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly dir: string;
  private line = "";
  private stderr = "";
  private pending: Pending | undefined;
  private exited = false;
  private killedFor: string | undefined;
  items = 0;
  readonly loaded: Promise<void>;
  private readonly o: SandboxOptions;

  constructor(o: SandboxOptions, config: CustomCodeConfig) {
    this.o = o;
    this.dir = mkdtempSync(join(tmpdir(), "argus-evaluator-"));
    const python = [o.python, "-I", "-S", "-B", RUNNER];
    const [command, ...args] =
      o.isolation === "namespace"
        ? ["unshare", "--net", "--map-root-user", "--", ...python]
        : python;
    // No environment: the worker's database and messaging secrets stay with the worker.
    this.child = spawn(command!, args, {
      cwd: this.dir,
      env: { LANG: "C.UTF-8" },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.read(chunk));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEPT);
    });
    this.child.stdin.on("error", () => undefined);
    this.child.on("error", (err) => this.end(`could not start ${o.python}: ${err.message}`));
    this.child.on("exit", (code, signal) =>
      this.end(
        this.killedFor ??
          (signal === "SIGXCPU"
            ? "the evaluator used up its CPU time"
            : `the evaluator's process ended (${signal ?? `exit ${code}`})${this.lastWords()}`),
      ),
    );
    this.loaded = this.send({
      code: config.code,
      imports: config.imports ?? "",
      static_params: config.static_params,
      memory_bytes: o.memoryBytes,
      cpu_seconds: Math.ceil((o.timeoutMs / 1000) * ITEMS_PER_PROCESS),
      hooks: o.hooks ?? o.isolation !== "off",
    }).then((answer) => {
      if (typeof answer.error === "string") {
        this.loadError = answer.error;
        throw new ItemError(answer.error);
      }
    });
    // Awaited by the first item; a host killed before it has one must not be an unhandled rejection.
    this.loaded.catch(() => undefined);
  }

  /** Why the code does not load (a syntax error, no evaluator class): true of every process. */
  loadError: string | undefined;

  get usable(): boolean {
    // A host being killed may not have exited yet: it is done all the same.
    return !this.exited && this.killedFor === undefined && this.items < ITEMS_PER_PROCESS;
  }

  async evaluate(values: Record<string, string>): Promise<Verdict> {
    await this.loaded;
    this.items++;
    const answer = await this.send({ values });
    if (typeof answer.error === "string") throw new ItemError(answer.error);
    return verdictOf(answer.result);
  }

  kill(reason: string): void {
    this.killedFor ??= reason;
    if (this.exited || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  private send(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.exited) return Promise.reject(new ItemError(this.killedFor ?? "evaluator ended"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.kill(`the evaluator did not answer within ${this.o.timeoutMs} ms`),
        this.o.timeoutMs,
      );
      this.pending = {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  private read(chunk: string): void {
    this.line += chunk;
    if (Buffer.byteLength(this.line) > this.o.outputBytes && !this.line.includes("\n")) {
      this.kill(`the evaluator's answer exceeded ${this.o.outputBytes} bytes`);
      return;
    }
    for (let end = this.line.indexOf("\n"); end >= 0; end = this.line.indexOf("\n")) {
      const text = this.line.slice(0, end);
      this.line = this.line.slice(end + 1);
      const pending = this.pending;
      this.pending = undefined;
      if (!pending) continue;
      if (Buffer.byteLength(text) > this.o.outputBytes) {
        pending.reject(
          new ItemError(`the evaluator's answer exceeded ${this.o.outputBytes} bytes`),
        );
        continue;
      }
      try {
        pending.resolve(JSON.parse(text) as Record<string, unknown>);
      } catch {
        pending.reject(new ItemError("the evaluator's host answered malformed output"));
      }
    }
  }

  private end(reason: string): void {
    if (this.exited) return;
    this.exited = true;
    this.killedFor ??= reason;
    this.pending?.reject(new ItemError(reason));
    this.pending = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private lastWords(): string {
    const text = this.stderr.trim().split("\n").slice(-3).join(" | ");
    return text ? `: ${text}` : "";
  }
}

/**
 * A CUSTOM code evaluator of one run: up to `processes` Python processes, each evaluating one
 * item at a time under the limits; a process that breaks a limit is killed, that item is its
 * error, and the next item gets a fresh process. The worker never runs the code itself.
 */
export function customSandbox(o: SandboxOptions, config: CustomCodeConfig): Sandbox {
  const idle: Host[] = [];
  const waiting: ((h: Host) => void)[] = [];
  const all = new Set<Host>();
  let closed = false;
  let broken: string | undefined;

  const acquire = async (): Promise<Host> => {
    for (;;) {
      const host = idle.pop();
      if (!host) break;
      if (host.usable) return host;
      host.kill("replaced");
      all.delete(host);
    }
    if (all.size < o.processes) {
      const host = new Host(o, config);
      all.add(host);
      return host;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (host: Host) => {
    if (!host.usable || closed) {
      host.kill("replaced");
      all.delete(host);
      if (closed) return;
      const next = waiting.shift();
      if (next) {
        const fresh = new Host(o, config);
        all.add(fresh);
        next(fresh);
      }
      return;
    }
    const next = waiting.shift();
    if (next) next(host);
    else idle.push(host);
  };

  return {
    async evaluate(values) {
      if (closed) throw new ItemError("the run's evaluators are closed");
      if (broken !== undefined) throw new ItemError(broken);
      const host = await acquire();
      try {
        return await host.evaluate(values);
      } finally {
        broken ??= host.loadError;
        release(host);
      }
    },
    close() {
      closed = true;
      for (const host of all) host.kill("closed");
      all.clear();
      idle.length = 0;
    },
  };
}
