import type { Server } from "node:net";
import { freePort } from "./freePort.ts";

/** Whether a start failed because another process bound its port first (EADDRINUSE). */
export const lostPortRace = (err: unknown): boolean => /address already in use/i.test(String(err));

/** freePort() can race with other processes; a server that lost the race gets another port. */
export async function startOnFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (!lostPortRace(err) || attempt === 3) throw err;
    }
  }
}

/**
 * Listens on 127.0.0.1 at a port from freePort, never at port 0: the OS picks port 0 from the
 * ephemeral range, where a published container port is a DNAT rule no bind sees (freePort.ts).
 * Answers the port.
 */
export function listenLocal(server: Server): Promise<number> {
  return startOnFreePort(
    (port) =>
      new Promise<number>((resolve, reject) => {
        const failed = (err: Error) => reject(err);
        server.once("error", failed);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", failed);
          resolve(port);
        });
      }),
  );
}
