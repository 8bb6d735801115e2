import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "./processAlive.ts";

/**
 * The ports handed out: below Linux's ephemeral range (32768–60999) and Kubernetes' NodePorts
 * (30000–32767). A port the OS picks for a bind to port 0 or an outgoing connection comes from
 * the ephemeral range, and so does the host port podman publishes a container's port on, which
 * is a DNAT rule, not a socket: a test binding such a port succeeds, and its clients reach the
 * container instead. Here no bind-to-0, connection or container takes a port from under a test.
 */
const RANGE_FIRST = 20_000;
const RANGE_COUNT = 10_000;

/**
 * Processes choosing ports at once (two test files each starting a stack) would each find the
 * same port free before either bound it, and walking on in step, lose again on every retry. A
 * port is therefore claimed across processes: a file named by the port in a directory all of
 * them share, created exclusively, holding the claimer's pid. A claim outlives its port's use
 * until its process ends; one whose process is gone (killed, so its exit hook never ran) is
 * taken over. (Vitest's pool ids, which slices of the range once followed, repeat between
 * workers running at once when the whole suite runs.)
 */
const CLAIMS = join(tmpdir(), "argus-port-claims");
mkdirSync(CLAIMS, { recursive: true });
const mine: string[] = [];
process.on("exit", () => {
  for (const claim of mine) {
    try {
      unlinkSync(claim);
    } catch {
      // Taken over or cleared already.
    }
  }
});

let next = RANGE_FIRST + Math.floor(Math.random() * RANGE_COUNT);

/** A TCP port on 127.0.0.1 that was free a moment ago and that no other process has claimed. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < RANGE_COUNT; tried++) {
    const port = next;
    next = RANGE_FIRST + ((next - RANGE_FIRST + 1) % RANGE_COUNT);
    if (!claim(port)) continue;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${RANGE_FIRST}–${RANGE_FIRST + RANGE_COUNT - 1}`);
}

/** Whether this process now holds the port's claim (never one it held before: each port once). */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      mine.push(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const pid = holder(file);
    // A claim being written has no pid yet: it is held.
    if (pid === 0 || processAlive(pid)) return false;
    try {
      unlinkSync(file);
    } catch {
      // Another process took it over first; the exclusive create decides.
    }
  }
  return false;
}

function holder(file: string): number {
  try {
    return Number(readFileSync(file, "utf8"));
  } catch {
    return 0;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
