/**
 * What the gateway itself saw during a fuzz run, from its access log: every response by
 * status class, and the errors it logged as unexpected. Counted on the server's side, so a
 * 5xx is caught even where the fuzzer's own checks were switched off.
 */
export interface Tally {
  responses: number;
  byClass: Record<string, number>;
  /** `METHOD /route/{template}` → status → count, for reading what an operation got. */
  byRoute: Record<string, Record<string, number>>;
  serverErrors: string[];
}

export function createTally(): { tally: Tally; onLine(line: string): void } {
  const tally: Tally = { responses: 0, byClass: {}, byRoute: {}, serverErrors: [] };
  return {
    tally,
    onLine(line) {
      const m = /^\[(\w+)\] (\{.*\})$/.exec(line);
      if (!m) return;
      let entry: {
        msg?: string;
        status?: number;
        method?: string;
        path?: string;
        route?: string | null;
      };
      try {
        entry = JSON.parse(m[2]!) as typeof entry;
      } catch {
        return;
      }
      if (m[1] === "gateway" && entry.msg === "request" && typeof entry.status === "number") {
        tally.responses++;
        const cls = `${Math.floor(entry.status / 100)}xx`;
        tally.byClass[cls] = (tally.byClass[cls] ?? 0) + 1;
        const route = (tally.byRoute[`${entry.method} ${entry.route ?? "(no route)"}`] ??= {});
        route[entry.status] = (route[entry.status] ?? 0) + 1;
        if (entry.status >= 500)
          tally.serverErrors.push(`${entry.status} ${entry.method} ${entry.path}`);
      }
      if (/"level":"error"/.test(m[2]!))
        tally.serverErrors.push(`${m[1]}: ${m[2]!.slice(0, 2000)}`);
    },
  };
}
