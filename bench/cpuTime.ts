import { readFileSync } from "node:fs";

// USER_HZ, the unit of utime/stime in /proc/<pid>/stat, is 100 on every Linux we run on.
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) a process has used so far, in ms; NaN without /proc. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After "pid (comm) ", utime and stime are the 12th and 13th fields.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU ms used so far by each named process, and by this one (the load generator) as `client`. */
export function cpuTimes(pids: Record<string, number>): Record<string, number> {
  const times: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) times[name] = processCpuMs(pid);
  const self = process.cpuUsage();
  times.client = (self.user + self.system) / 1000;
  return times;
}
