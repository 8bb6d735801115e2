import { onExit as onSignalExit } from "signal-exit";

/**
 * Registers a synchronous last-resort cleanup (kill a child, remove a directory) for when this
 * process exits or dies of a signal before the owner stops normally. Returns the unregister.
 * signal-exit, not raw process.on(signal): testcontainers loads signal-exit v3, and two polite
 * signal handlers that each leave the exit to "the other listener" keep the process alive.
 */
export function onExit(task: () => void): () => void {
  return onSignalExit(() => {
    try {
      task();
    } catch {
      // Best effort: the process is going away anyway.
    }
  });
}
