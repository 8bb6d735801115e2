/**
 * What one event may carry of a write's payload (examples, annotations) so that, with its
 * envelope and metadata, it fits a NATS message (1 MiB by default): a large write becomes
 * several events of one transaction.
 */
export const EVENT_PAYLOAD_BYTES = 960 * 1024;

/** Consecutive runs of items whose sizes add up to at most `budget` each (none is empty). */
export function chunkBySize<T>(items: readonly T[], size: (t: T) => number, budget: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const s = size(item);
    if (current.length > 0 && used + s > budget) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += s;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
