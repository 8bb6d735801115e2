/**
 * What a request under an Idempotency-Key meets (docs/architecture.md, "Safe retries"): the
 * rule, apart from its storage, so it is tested on its own.
 */

/** A key as identity keeps it. */
export interface KeyRecord {
  fingerprint: string;
  state: "in_flight" | "done";
  leaseUntil: Date;
  expiresAt: Date;
}

export type BeginDecision =
  /** Nothing live under the key, or an attempt whose lease ran out: this attempt runs it. */
  | "start"
  /** Answered: the stored answer is replayed. */
  | "replay"
  /** The key was used with another request. */
  | "mismatch"
  /** Another attempt is running it. */
  | "in_flight";

/**
 * A request with `fingerprint` at `now`, given what is kept under its key. An expired key is
 * forgotten whatever it held; a live one binds the key to its request for 24 h, even once the
 * attempt that ran it is gone.
 */
export function decideBegin(
  record: KeyRecord | undefined,
  fingerprint: string,
  now: Date,
): BeginDecision {
  if (!record || record.expiresAt.getTime() <= now.getTime()) return "start";
  if (record.fingerprint !== fingerprint) return "mismatch";
  if (record.state === "done") return "replay";
  return record.leaseUntil.getTime() > now.getTime() ? "in_flight" : "start";
}
