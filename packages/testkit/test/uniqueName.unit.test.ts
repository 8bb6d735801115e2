import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type AddressInfo, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, listenLocal, uniqueName } from "../src/index.ts";

it("makes distinct names of only [A-Za-z0-9_-] that start with the prefix", () => {
  const names = new Set(Array.from({ length: 1000 }, () => uniqueName("ARGUS_EVENTS")));
  expect(names.size).toBe(1000);
  for (const name of names) expect(name).toMatch(/^ARGUS_EVENTS_[A-Za-z0-9_-]+$/);
  expect(uniqueName("orders.v1 >*")).toMatch(/^orders_v1___[0-9a-f]+$/);
});

/** Where the OS picks a port for a bind to 0, a connection or a published container port. */
function ephemeralRange(): [number, number] {
  const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
    .trim()
    .split(/\s+/)
    .map(Number);
  return [low!, high!];
}

const claimFile = (port: number) => join(tmpdir(), "argus-port-claims", String(port));

describe("freePort", () => {
  it("hands out distinct ports outside the ephemeral range and NodePorts, each bindable", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(200);
    const [low, high] = ephemeralRange();
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(30_000);
      expect(port < low || port > high).toBe(true);
    }
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], "127.0.0.1", resolve));
    server.close();
  });

  it("claims each port it hands out for as long as its process lives, across processes", async () => {
    // Two files starting stacks at once each found the same ports free, lost some to the other,
    // and walking on in step, lost again on every retry: a port handed out is claimed.
    const script = `import("${new URL("../src/freePort.ts", import.meta.url).pathname}").then(async (m) => { const ports = []; for (let i = 0; i < 20; i++) ports.push(await m.freePort()); console.log(JSON.stringify(ports)); await new Promise((r) => setTimeout(r, 1000)); })`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const ports = await new Promise<number[]>((resolve) =>
      child.stdout.once("data", (d: Buffer) => resolve(JSON.parse(String(d)) as number[])),
    );
    for (const port of ports) expect(readFileSync(claimFile(port), "utf8")).toBe(String(child.pid));
    await new Promise((resolve) => child.once("exit", resolve));
    for (const port of ports) expect(existsSync(claimFile(port))).toBe(false);
  });

  it("passes over a port another live process claimed, and takes over one whose claimer is gone", async () => {
    const sleeper = spawn("sleep", ["30"]);
    const gone = spawn("true");
    await new Promise((resolve) => gone.once("exit", resolve));
    try {
      const probe = await freePort();
      const ahead = (n: number) => 20_000 + ((probe - 20_000 + n) % 10_000);
      for (let n = 1; n <= 50; n++) writeFileSync(claimFile(ahead(n)), String(sleeper.pid));
      writeFileSync(claimFile(ahead(51)), String(gone.pid));
      try {
        const port = await freePort();
        expect(port).toBe(ahead(51));
        expect(readFileSync(claimFile(port), "utf8")).toBe(String(process.pid));
      } finally {
        for (let n = 1; n <= 50; n++) rmSync(claimFile(ahead(n)), { force: true });
      }
    } finally {
      sleeper.kill();
    }
  });

  it("passes over a port something listens on", async () => {
    // Hold the next 50 ports this process would walk to: none of them comes out.
    const probe = await freePort();
    const held: Server[] = [];
    for (let port = probe + 1; port <= probe + 50 && port < 30_000; port++) {
      const s = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        s.once("error", () => resolve(false));
        s.listen(port, "127.0.0.1", () => resolve(true));
      });
      if (bound) held.push(s);
    }
    try {
      const port = await freePort();
      expect(held.map((s) => (s.address() as AddressInfo).port)).not.toContain(port);
    } finally {
      for (const s of held) s.close();
    }
  });
});

it("listenLocal listens on a port from freePort and answers it", async () => {
  const server = createServer((socket) => socket.end("hi"));
  const port = await listenLocal(server);
  try {
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(30_000);
    expect((server.address() as AddressInfo).port).toBe(port);
  } finally {
    server.close();
  }
});
