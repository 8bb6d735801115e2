import { once } from "node:events";
import { connect, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, spawnProcess } from "../src/index.ts";

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const node = process.execPath;

describe("spawnProcess", () => {
  it("resolves once the child is ready, captures prefixed output, and stops it", async () => {
    const port = await freePort();
    const server = `
      console.log("starting on " + process.env.PORT);
      setTimeout(() => require("node:net").createServer().listen(Number(process.env.PORT), "127.0.0.1"), 300);
      process.on("SIGTERM", () => { console.log("bye"); process.exit(7); });`;
    const child = await spawnProcess({
      name: "echo-server",
      command: node,
      args: ["-e", server],
      env: { PORT: String(port) },
      readyWhen: () => accepts(port),
    });
    expect(child.pid).toBeGreaterThan(0);
    expect(await accepts(port)).toBe(true);
    expect(child.output()).toContain(`[echo-server] starting on ${port}\n`);
    expect(await child.stop()).toBe(7);
    expect(child.output()).toContain("[echo-server] bye\n");
    expect(await accepts(port)).toBe(false);
  });

  it("fails with the captured output when the child exits before it is ready", async () => {
    const start = spawnProcess({
      name: "crasher",
      command: node,
      args: ["-e", 'console.error("no config"); process.exit(3)'],
      env: {},
      readyWhen: async () => false,
    });
    await expect(start).rejects.toThrow(/crasher exited \(code 3\)[\s\S]*\[crasher\] no config/);
  });

  it("fails with the captured output and kills the child when it is not ready in time", async () => {
    const started = Date.now();
    const start = spawnProcess({
      name: "sleeper",
      command: node,
      args: ["-e", 'console.log("still warming up"); setInterval(() => {}, 1000)'],
      env: {},
      readyWhen: async () => false,
      timeoutMs: 700,
    });
    await expect(start).rejects.toThrow(
      /sleeper was not ready within 700 ms[\s\S]*still warming up/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("gives up a start, killing the child, when its abandon signal aborts", async () => {
    const abandon = new AbortController();
    let pid = 0;
    const start = spawnProcess({
      name: "waiter",
      command: node,
      args: ["-e", 'console.log("pid " + process.pid); setInterval(() => {}, 1000)'],
      env: {},
      readyWhen: async () => false,
      timeoutMs: 60_000,
      abandon: abandon.signal,
      onLine: (line) => {
        const m = /pid (\d+)/.exec(line);
        if (m) {
          pid = Number(m[1]);
          abandon.abort("a sibling lost its port");
        }
      },
    });
    await expect(start).rejects.toThrow(/waiter: start abandoned \(a sibling lost its port\)/);
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it("a check that never settles counts as not yet: the next one can find the child ready", async () => {
    let calls = 0;
    const proc = await spawnProcess({
      name: "hung-probe",
      command: node,
      args: ["-e", "setInterval(() => {}, 1000)"],
      env: {},
      // The first check hangs for good, as a probe of a half-started server can.
      readyWhen: () => (++calls === 1 ? new Promise<boolean>(() => {}) : Promise.resolve(true)),
      checkTimeoutMs: 200,
      timeoutMs: 5_000,
    });
    try {
      expect(calls).toBe(2);
    } finally {
      await proc.stop();
    }
  });

  it("says what the last check answered when none said ready", async () => {
    const start = spawnProcess({
      name: "refusing",
      command: node,
      args: ["-e", "setInterval(() => {}, 1000)"],
      env: {},
      readyWhen: () =>
        Promise.reject(new Error("fetch failed", { cause: { code: "ECONNREFUSED" } })),
      timeoutMs: 500,
    });
    await expect(start).rejects.toThrow(
      /refusing was not ready within 500 ms \(\d+ checks, the last: failed: fetch failed \(ECONNREFUSED\)\)/,
    );
  });

  it("a port another process answers on is not this child's readiness: its own line is", async () => {
    // The probe port is held by someone else; the child cannot bind it and dies.
    const port = await freePort();
    const squatter = createServer().listen(port, "127.0.0.1");
    await once(squatter, "listening");
    const server = `
      require("node:net").createServer().listen(Number(process.env.PORT), "127.0.0.1", () =>
        console.log("listening on " + process.env.PORT));`;
    try {
      const start = spawnProcess({
        name: "late-binder",
        command: node,
        args: ["-e", server],
        env: { PORT: String(port) },
        readyWhen: () => accepts(port),
        readyLine: /listening on/,
      });
      await expect(start).rejects.toThrow(/late-binder exited \(code 1\)[\s\S]*EADDRINUSE/);
    } finally {
      squatter.close();
    }
  });

  it("hands out a port at most once, though the OS repeats them", async () => {
    const ports = [];
    // More than the OS's own walk would repeat within.
    for (let i = 0; i < 2400; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("fails clearly when the command does not exist", async () => {
    const start = spawnProcess({
      name: "ghost",
      command: "/nonexistent/argus-ghost",
      args: [],
      env: {},
      readyWhen: async () => true,
    });
    await expect(start).rejects.toThrow(/ghost: could not start \/nonexistent\/argus-ghost/);
  });
});
