import { createSocket } from "node:dgram";
import { IdentityServiceService as S } from "@argus/proto/identity/v1";
import { describe, expect, it, vi } from "vitest";

// grpc-js reads it when it loads: names are looked up with c-ares, which asks the DNS server a
// dns://server/name target names (as getaddrinfo, the default, would ask the cluster's).
vi.hoisted(() => {
  process.env.GRPC_NODE_USE_ALTERNATIVE_RESOLVER = "true";
});

const { callUnary, createChannel } = await import("../src/grpcClient.ts");
const { bindService } = await import("../src/grpcServer.ts");
const { afterThisTest, asGateway, startServer } = await import("./grpcFixtures.ts");

/**
 * A DNS server on loopback, the edge a headless Service's name goes through: it answers A
 * queries for any name with `addresses` as they are when asked (TTL 0), AAAA with none.
 */
async function startDns(): Promise<{ port: number; addresses: string[] }> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  afterThisTest(() => socket.close());
  const dns = { port: socket.address().port, addresses: [] as string[] };
  socket.on("message", (query, peer) => {
    let end = 12;
    while (query[end]! !== 0) end += query[end]! + 1;
    const qtype = query.readUInt16BE(end + 1);
    const question = query.subarray(12, end + 5);
    const answers = qtype === 1 ? dns.addresses : [];
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
  return dns;
}

/** A replica whose GetSpace answers with its own name. */
const replica = (name: string, at: Parameters<typeof startServer>[0]) =>
  startServer(
    at,
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
  );

/** A channel to the name `dns` answers for, on `port`, and a GetSpace call on it. */
function channelTo(dns: { port: number }, port: number) {
  const channel = createChannel(`dns://127.0.0.1:${dns.port}/replicas.test:${port}`);
  afterThisTest(() => channel.close());
  return () => callUnary(channel, S.getSpace, { id: "s1" }, asGateway);
}

describe("a channel to a name (a headless Service)", () => {
  it("finds the replica that replaced the only one it knew, though it resolved the name a moment ago", async () => {
    const dns = await startDns();
    dns.addresses = ["127.0.0.1"];
    const first = await replica("first", {});
    const ask = channelTo(dns, first.port);
    expect((await ask()).name).toBe("first");

    // A rolling update: the new pod comes up at another address, the name points at it alone,
    // then the old pod stops. grpc-js's default waits 30 s between two lookups of a name; the
    // call (5 s, retried on UNAVAILABLE) would fail on the old address meanwhile.
    await replica("second", { host: "127.0.0.2", port: first.port });
    dns.addresses = ["127.0.0.2"];
    await first.shutdown(0);
    expect((await ask()).name).toBe("second");
  });

  it("sends calls to a replica added behind the name once its connection to the other ages out", async () => {
    const dns = await startDns();
    dns.addresses = ["127.0.0.1"];
    // The servers' age, 30 s, shortened: what matters is that a connection ends at all.
    const first = await replica("first", { maxConnectionAgeMs: 500 });
    const ask = channelTo(dns, first.port);
    expect((await ask()).name).toBe("first");

    // An autoscaler's new replica: the name gives both now; the channel keeps its connection.
    await replica("second", { host: "127.0.0.2", port: first.port, maxConnectionAgeMs: 500 });
    dns.addresses = ["127.0.0.1", "127.0.0.2"];
    const answered = new Set<string>();
    for (const end = Date.now() + 4_000; Date.now() < end && answered.size < 2;) {
      answered.add((await ask()).name);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect([...answered].sort()).toEqual(["first", "second"]);
  });
});
