import { readFileSync, readdirSync } from "node:fs";

// USER_HZ, the unit of utime/stime in /proc/<pid>/stat and of /proc/stat, is 100 on every
// Linux we run on.
const TICKS_PER_SECOND = 100;
const ticksToMs = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;

interface ProcessStat {
  comm: string;
  ppid: number;
  /** User + system time of its own threads. */
  ms: number;
  /** User + system time of its children that ended and were waited for. */
  reapedMs: number;
}

function processStat(pid: number | string): ProcessStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    // After "pid (comm) ": state, ppid, …, utime, stime, cutime, cstime as fields 1 and 11-14.
    const f = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    return {
      comm,
      ppid: f[1]!,
      ms: ticksToMs(f[11]! + f[12]!),
      reapedMs: ticksToMs(f[13]! + f[14]!),
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU ms used so far by every process named `comm`: for Postgres (the postmaster, its backends
 * and workers), on a GET most of what the stack and its floor cost beyond their own processes.
 * A backend that ends (a pool closes idle connections) is counted on in its postmaster's
 * reaped time.
 */
function serverCpuMs(comm: string): number {
  const stats = new Map<number, ProcessStat>();
  try {
    for (const entry of readdirSync("/proc")) {
      if (entry.charCodeAt(0) > 57) continue;
      const stat = processStat(entry);
      if (stat?.comm === comm) stats.set(Number(entry), stat);
    }
  } catch {
    return NaN;
  }
  if (stats.size === 0) return NaN;
  let ms = 0;
  for (const stat of stats.values()) ms += stat.ms + (stats.has(stat.ppid) ? 0 : stat.reapedMs);
  return ms;
}

/**
 * CPU ms every core of the machine spent busy so far (user, nice, system, irq, softirq,
 * steal): what a request costs in all, the kernel's share of the network included.
 */
function machineBusyMs(): number {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = cpu.slice(1).map(Number);
    return ticksToMs(user! + nice! + system! + irq! + softirq! + (steal ?? 0));
  } catch {
    return NaN;
  }
}

/** The figures `cpuTimes` adds beside the named processes': not a system's own processes. */
export const NOT_A_SERVER_PROCESS: ReadonlySet<string> = new Set([
  "client",
  "postgres",
  "nats",
  "machine",
]);

/**
 * CPU ms used so far by each named process, by this one (the load generator) as `client`, by
 * every Postgres process together as `postgres`, by nats-server as `nats`, and by the whole
 * machine as `machine`; NaN
 * where /proc does not say.
 */
export function cpuTimes(pids: Record<string, number>): Record<string, number> {
  const times: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) times[name] = processStat(pid)?.ms ?? NaN;
  const self = process.cpuUsage();
  times.client = (self.user + self.system) / 1000;
  times.postgres = serverCpuMs("postgres");
  // Every JetStream publish and delivery of both sides goes through it.
  times.nats = serverCpuMs("nats-server");
  times.machine = machineBusyMs();
  return times;
}
