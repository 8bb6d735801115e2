import type { Checkpoint } from "../types.ts";

export const initialCheckpoint: Checkpoint = { transactionId: 0n, globalPosition: 0n };

/** Orders positions as the relay reads them: by transaction first, then by identity. */
export function compareCheckpoints(a: Checkpoint, b: Checkpoint): -1 | 0 | 1 {
  if (a.transactionId !== b.transactionId) return a.transactionId < b.transactionId ? -1 : 1;
  if (a.globalPosition !== b.globalPosition) return a.globalPosition < b.globalPosition ? -1 : 1;
  return 0;
}

export function checkpointOf(event: Checkpoint): Checkpoint {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}
