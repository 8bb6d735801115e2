import { createSocket, type Socket } from "node:dgram";
import { IdentityServiceService as S } from "@argus/proto/identity/v1";
import { afterEach, describe, expect, it, vi } from "vitest";

// grpc-js reads it when it loads: names are looked up with c-ares, which asks the DNS server a
// dns://server/name target names (as getaddrinfo, the default, would ask the cluster's).
vi.hoisted(() => {
  process.env.GRPC_NODE_USE_ALTERNATIVE_RESOLVER = "true";
});

const { callUnary, createChannel } = await import("../src/grpcClient.ts");
const { bindService, startGrpcServer } = await import("../src/grpcServer.ts");
const { parsePublicKey } = await import("../src/callCredentials.ts");
const { createLogger } = await import("../src/logger.ts");
const { asGateway, gatewayPublicKey } = await import("./grpcFixtures.ts");

/**
 * A DNS server on loopback, the edge a headless Service's name goes through: it answers A
 * queries for any name with `addresses` as they are when asked (TTL 0), AAAA with none.
 */
async function startDns(): Promise<{ port: number; addresses: string[]; close(): void }> {
  const socket: Socket = createSocket("udp4");
  const state = { addresses: [] as string[] };
  socket.on("message", (query, peer) => {
    let end = 12;
    while (query[end]! !== 0) end += query[end]! + 1;
    const qtype = query.readUInt16BE(end + 1);
    const question = query.subarray(12, end + 5);
    const answers = qtype === 1 ? state.addresses : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((a) => {
      const r = Buffer.alloc(16);
      r.writeUInt16BE(0xc00c, 0); // the question's name
      r.writeUInt16BE(1, 2); // A
      r.writeUInt16BE(1, 4); // IN
      r.writeUInt32BE(0, 6); // TTL
      r.writeUInt16BE(4, 10);
      a.split(".").forEach((octet, i) => r.writeUInt8(Number(octet), 12 + i));
      return r;
    });
    socket.send(Buffer.concat([header, question, ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    port: socket.address().port,
    get addresses() {
      return state.addresses;
    },
    set addresses(a: string[]) {
      state.addresses = a;
    },
    close: () => socket.close(),
  };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A replica at `host:port` whose GetSpace answers with its own name. */
async function replica(host: string, port: number, name: string, maxConnectionAgeMs?: number) {
  const server = await startGrpcServer({
    host,
    port,
    ...(maxConnectionAgeMs ? { maxConnectionAgeMs } : {}),
    services: [
      bindService(
        { getSpace: S.getSpace },
        {
          getSpace: async () => ({
            id: "s1",
            organizationId: "o1",
            name,
            description: "",
            isPrivate: false,
            createdAt: "",
          }),
        },
      ),
    ],
    trust: { keys: { gateway: parsePublicKey(gatewayPublicKey) } },
    logger: createLogger({ service: "test", write: () => undefined }),
  });
  cleanups.push(() => server.shutdown(0));
  return server;
}

describe("a channel to a name (a headless Service)", () => {
  it("finds the replica that replaced the only one it knew, though it resolved the name a moment ago", async () => {
    const dns = await startDns();
    cleanups.push(() => dns.close());
    dns.addresses = ["127.0.0.1"];
    const first = await replica("127.0.0.1", 0, "first");
    const channel = createChannel(`dns://127.0.0.1:${dns.port}/replicas.test:${first.port}`);
    cleanups.push(() => channel.close());
    const ask = () => callUnary(channel, S.getSpace, { id: "s1" }, asGateway);
    expect((await ask()).name).toBe("first");

    // A rolling update: the new pod comes up at another address, the name points at it alone,
    // then the old pod stops. grpc-js's default waits 30 s between two lookups of a name; the
    // call (5 s, retried on UNAVAILABLE) would fail on the old address meanwhile.
    await replica("127.0.0.2", first.port, "second");
    dns.addresses = ["127.0.0.2"];
    await first.shutdown(0);
    expect((await ask()).name).toBe("second");
  });

  it("sends calls to a replica added behind the name once its connection to the other ages out", async () => {
    const dns = await startDns();
    cleanups.push(() => dns.close());
    dns.addresses = ["127.0.0.1"];
    // The servers' age, 30 s, shortened: what matters is that a connection ends at all.
    const first = await replica("127.0.0.1", 0, "first", 500);
    const channel = createChannel(`dns://127.0.0.1:${dns.port}/replicas.test:${first.port}`);
    cleanups.push(() => channel.close());
    const ask = () => callUnary(channel, S.getSpace, { id: "s1" }, asGateway);
    expect((await ask()).name).toBe("first");

    // An autoscaler's new replica: the name gives both now; the channel keeps its connection.
    await replica("127.0.0.2", first.port, "second", 500);
    dns.addresses = ["127.0.0.1", "127.0.0.2"];
    const answered = new Set<string>();
    for (const end = Date.now() + 4_000; Date.now() < end && answered.size < 2;) {
      answered.add((await ask()).name);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect([...answered].sort()).toEqual(["first", "second"]);
  });
});
