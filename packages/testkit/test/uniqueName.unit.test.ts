import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
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

  it("a vitest worker takes ports only from its pool id's slice, which workers beside it lack", async () => {
    // Two files starting stacks at once each found the same ports free and lost some to the
    // other: workers with distinct pool ids now choose from disjoint slices.
    const slice = (id: number) => {
      const script = `import("${new URL("../src/freePort.ts", import.meta.url).pathname}").then(async (m) => { const ports = []; for (let i = 0; i < 100; i++) ports.push(await m.freePort()); console.log(JSON.stringify(ports)); })`;
      const out = execFileSync(process.execPath, ["-e", script], {
        env: { ...process.env, VITEST_POOL_ID: String(id) },
        encoding: "utf8",
      });
      return JSON.parse(out) as number[];
    };
    const [one, two] = [slice(1), slice(2)];
    for (const port of one) expect(port >= 20_000 && port < 22_500).toBe(true);
    for (const port of two) expect(port >= 22_500 && port < 25_000).toBe(true);
    expect(new Set(one).size).toBe(100);
    const mine = Number(process.env.VITEST_POOL_ID);
    const low = 20_000 + ((mine - 1) % 4) * 2_500;
    const port = await freePort();
    expect(port >= low && port < low + 2_500).toBe(true);
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
