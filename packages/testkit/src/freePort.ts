import { createServer } from "node:net";

// Linux hands out port-0 binds at random from the ephemeral range, so one process asking for
// a dozen ports per stack soon gets one twice; a port given out is never given out again here.
const given = new Set<number>();

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it; we release it at once). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await anyFreePort();
    if (given.has(port)) continue;
    given.add(port);
    return port;
  }
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("could not determine a free port"));
      });
    });
  });
}
