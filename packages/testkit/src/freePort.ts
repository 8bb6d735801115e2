import { createServer } from "node:net";

/**
 * The ports handed out: below Linux's ephemeral range (32768–60999) and Kubernetes' NodePorts
 * (30000–32767). A port the OS picks for a bind to port 0 or an outgoing connection comes from
 * the ephemeral range, and so does the host port podman publishes a container's port on, which
 * is a DNAT rule, not a socket: a test binding such a port succeeds, and its clients reach the
 * container instead. Here no bind-to-0, connection or container takes a port from under a test.
 */
const RANGE_FIRST = 20_000;
const RANGE_COUNT = 10_000;

// Vitest workers running at once have distinct pool ids: each gets a slice of its own, so two
// files starting stacks at the same moment never choose the same port (both would find it free
// before either bound it). Within its slice a process starts at random and never gives a port
// out twice (2 500 ports: a file's stacks take ~17 each). Outside vitest the whole range is one
// slice.
const SLICES = 4;
const poolId = Number(process.env.VITEST_POOL_ID);
const sliced = Number.isInteger(poolId) && poolId >= 1;
const COUNT = sliced ? RANGE_COUNT / SLICES : RANGE_COUNT;
const FIRST = sliced ? RANGE_FIRST + ((poolId - 1) % SLICES) * COUNT : RANGE_FIRST;
let next = FIRST + Math.floor(Math.random() * COUNT);
const given = new Set<number>();

/** A TCP port on 127.0.0.1 that was free a moment ago (we bind it and release it at once). */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < COUNT; tried++) {
    const port = next;
    next = FIRST + ((next - FIRST + 1) % COUNT);
    if (given.has(port) || !(await canListen(port))) continue;
    given.add(port);
    return port;
  }
  throw new Error(`no free port in ${FIRST}–${FIRST + COUNT - 1}`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
