import { freePort } from "./freePort.ts";

/** freePort() can race with other processes; a server that lost the race gets another port. */
export async function startOnFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      const lostRace = err instanceof Error && /address already in use/i.test(err.message);
      if (!lostRace || attempt === 3) throw err;
    }
  }
}
