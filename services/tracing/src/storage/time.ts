/** Nanoseconds since the epoch as RFC 3339 with microseconds, what timestamptz keeps. */
export function isoOfNanos(ns: bigint): string {
  const us = ns / 1000n;
  const ms = us / 1000n;
  const micro = Number(us - ms * 1000n);
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, -1)}${String(micro).padStart(3, "0")}Z`;
}

const DAY_MS = 86_400_000;

/** The UTC day (days since the epoch) a time in nanoseconds falls on. */
export const dayOfNanos = (ns: bigint): number => Number(ns / 86_400_000_000_000n);

export const dayOfMs = (ms: number): number => Math.floor(ms / DAY_MS);

/** `spans_20261124`: one partition per UTC day. */
export function partitionName(day: number): string {
  const d = new Date(day * DAY_MS).toISOString();
  return `spans_${d.slice(0, 4)}${d.slice(5, 7)}${d.slice(8, 10)}`;
}

export const dayStartIso = (day: number): string => new Date(day * DAY_MS).toISOString();
