import { afterAll, beforeAll } from "vitest";

/**
 * What `start` answers, for the tests of one file: started before them, stopped after them.
 *
 * The handle is filled in place once started (so the file can hold it in a `const` from the
 * start): read it only inside hooks and tests. `start` must answer a plain object of its own
 * fields, as the services' test harnesses do, since those are what is copied. A `beforeAll` the
 * file registers after this call runs once it is up; the file's `afterAll`s run before it is
 * stopped (vitest runs after-hooks in reverse order).
 */
export function startedForFile<T extends { stop(): Promise<void> }>(start: () => Promise<T>): T {
  const handle = {} as T;
  let running: T | undefined;
  beforeAll(async () => {
    running = await start();
    Object.assign(handle, running);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return handle;
}
