const tasks = new Set<() => void>();
let installed = false;

/**
 * Registers a synchronous last-resort cleanup (kill a child, remove a directory) that runs if
 * this process exits or is signalled before the owner stops normally. Returns the unregister.
 */
export function onExit(task: () => void): () => void {
  install();
  tasks.add(task);
  return () => tasks.delete(task);
}

function runAll(): void {
  for (const task of tasks) {
    try {
      task();
    } catch {
      // Best effort: the process is going away anyway.
    }
  }
  tasks.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once("exit", runAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      runAll();
      // Our listener suppressed the default action; restore it unless someone else handles it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}
