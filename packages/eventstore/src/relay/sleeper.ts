export interface Sleeper {
  /** Waits `ms`; a wakeable sleep ends early on wake(), or at once if woken since clearWake(). */
  sleep(ms: number, wakeable: boolean): Promise<void>;
  wake(): void;
  clearWake(): void;
  /** Ends the current sleep and every later one at once. */
  close(): void;
}

/**
 * Only the leader's poll is wakeable: a standby or a backing-off relay that woke on every
 * commit would spin against the database at the commit rate.
 */
export function createSleeper(): Sleeper {
  let woken = false;
  let closed = false;
  let current: { end: () => void; wakeable: boolean } | undefined;
  return {
    sleep(ms, wakeable) {
      if (closed || (wakeable && woken)) return Promise.resolve();
      return new Promise((resolve) => {
        const end = () => {
          clearTimeout(timer);
          current = undefined;
          resolve();
        };
        const timer = setTimeout(end, ms);
        current = { end, wakeable };
      });
    },
    wake() {
      woken = true;
      if (current?.wakeable) current.end();
    },
    clearWake() {
      woken = false;
    },
    close() {
      closed = true;
      current?.end();
    },
  };
}
