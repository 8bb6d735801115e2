import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { briefError } from "./briefError.ts";
import { onExit } from "./exitCleanup.ts";

export interface SpawnProcessOptions {
  name: string;
  command: string;
  args: string[];
  /** Added on top of this process's environment. */
  env: Record<string, string>;
  cwd?: string;
  /** Polled until it resolves true; a rejection counts as "not yet". */
  readyWhen: () => Promise<boolean>;
  /**
   * Also required before ready: a line of the child's own output. A probe port can answer for
   * another process that holds it, so only the child's word proves this one is listening.
   */
  readyLine?: RegExp;
  /** Default 30 s. */
  timeoutMs?: number;
  /**
   * A check that has not settled within this long counts as "not yet", and the next one
   * starts (default 10 s): one probe stuck on a server that was still starting must not spend
   * the whole timeout.
   */
  checkTimeoutMs?: number;
  /** Called with each complete output line (already prefixed), e.g. to show logs live. */
  onLine?: (line: string) => void;
  /**
   * Gives up the start (the child is killed and the start rejects) when aborted: a sibling that
   * failed to start can make waiting for this one pointless.
   */
  abandon?: AbortSignal;
  /** Run as another OS user (used to start Postgres when we are root). */
  uid?: number;
  gid?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnedProcess {
  /** Signals the process group (default SIGTERM), SIGKILLs it after 10 s; resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill(): void;
  /** Resolves when the process has exited, however it ended. */
  exited(): Promise<ProcessExit>;
  /** The child's stdout and stderr so far, each line prefixed with `[name]`. */
  output(): string;
  pid: number;
}

/** A start given up through its `abandon` signal: the child did not fail. */
export class StartAbandoned extends Error {}

const maxOutputChars = 1_000_000;
const stopGraceMs = 10_000;
const pollMs = 100;

/** Starts a long-running child and resolves once `readyWhen` holds; fails with its output. */
export async function spawnProcess(opts: SpawnProcessOptions): Promise<SpawnedProcess> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const checkTimeoutMs = opts.checkTimeoutMs ?? 10_000;
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so stopping it also reaches whatever it forked.
    detached: true,
    uid: opts.uid,
    gid: opts.gid,
  });
  let output = "";
  const append = (text: string): void => {
    output = (output + text).slice(-maxOutputChars);
    if (process.env.ARGUS_TESTKIT_LOGS) process.stderr.write(text);
  };
  capture(child.stdout, `[${opts.name}] `, append, opts.onLine);
  capture(child.stderr, `[${opts.name}] `, append, opts.onLine);

  let hasExited = false;
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (hasExited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  const unregister = onExit(() => signalGroup("SIGKILL"));
  const ended = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: null, signal: null }));
  }).finally(() => {
    hasExited = true;
    unregister();
  });
  const exited = ended.then((e) => e.code);
  const pid = await new Promise<number>((resolve, reject) => {
    child.once("spawn", () => resolve(child.pid ?? -1));
    child.once("error", (err) =>
      reject(
        new Error(`${opts.name}: could not start ${opts.command}: ${err.message}`, { cause: err }),
      ),
    );
  });

  const handle: SpawnedProcess = {
    pid,
    output: () => output,
    kill: () => signalGroup("SIGKILL"),
    exited: () => ended,
    async stop(signal = "SIGTERM") {
      signalGroup(signal);
      const escalate = setTimeout(() => signalGroup("SIGKILL"), stopGraceMs);
      const code = await exited;
      clearTimeout(escalate);
      return code;
    },
  };

  const giveUp = new AbortController();
  const timedOut = sleep(timeoutMs, "timeout" as const, { signal: giveUp.signal }).catch(
    () => "cancelled" as const,
  );
  const hasEnded = exited.then(() => "exited" as const);
  const abandoned = new Promise<"abandoned">((resolve) => {
    if (opts.abandon?.aborted) resolve("abandoned");
    opts.abandon?.addEventListener("abort", () => resolve("abandoned"), {
      once: true,
      signal: giveUp.signal,
    });
  });
  // What the checks said, for the error when none said ready.
  let checks = 0;
  let lastCheck = "none ran";
  try {
    for (;;) {
      checks++;
      const check = Promise.resolve()
        .then(opts.readyWhen)
        .then(
          (ready) => {
            lastCheck = ready ? "ready" : "not ready";
            return ready ? ("ready" as const) : ("waiting" as const);
          },
          (err: unknown) => {
            lastCheck = `failed: ${briefError(err)}`;
            return "waiting" as const;
          },
        );
      const stuck = new AbortController();
      const outcome = await Promise.race([
        check,
        hasEnded,
        timedOut,
        abandoned,
        sleep(checkTimeoutMs, "waiting" as const, { signal: stuck.signal }).then(
          (waiting) => {
            lastCheck = `unsettled after ${checkTimeoutMs} ms`;
            return waiting;
          },
          () => "waiting" as const,
        ),
      ]);
      stuck.abort();
      if (outcome === "ready" && (!opts.readyLine || opts.readyLine.test(output))) return handle;
      if (outcome === "exited") {
        throw new Error(
          `${opts.name} exited (code ${await exited}) before it was ready:\n${output}`,
        );
      }
      if (outcome === "abandoned") {
        handle.kill();
        await exited;
        throw new StartAbandoned(`${opts.name}: start abandoned (${String(opts.abandon?.reason)})`);
      }
      if (outcome === "timeout") {
        handle.kill();
        await exited;
        throw new Error(
          `${opts.name} was not ready within ${timeoutMs} ms (${checks} checks, the last: ${lastCheck}):\n${output}`,
        );
      }
      await Promise.race([sleep(pollMs), hasEnded, timedOut, abandoned]);
    }
  } finally {
    giveUp.abort();
  }
}

function capture(
  stream: Readable,
  prefix: string,
  append: (text: string) => void,
  onLine?: (line: string) => void,
): void {
  let atLineStart = true;
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    let text = "";
    for (const line of chunk.split(/(?<=\n)/)) {
      text += (atLineStart ? prefix : "") + line;
      atLineStart = line.endsWith("\n");
      if (!onLine) continue;
      pending += line;
      if (atLineStart) {
        onLine(prefix + pending.slice(0, -1));
        pending = "";
      }
    }
    append(text);
  });
}
