import type { StoredEvent } from "../types.ts";

/** Maps an event to its NATS subject. */
export type SubjectOf = (event: Pick<StoredEvent, "streamId" | "type">) => string;

const tokenUnsafe = /[^A-Za-z0-9_-]/g;

/** The aggregate is the stream id's prefix before the first '-': `space-<uuid>` → `space`. */
export function aggregateOf(streamId: string): string {
  const dash = streamId.indexOf("-");
  return dash === -1 ? streamId : streamId.slice(0, dash);
}

/**
 * `argus.<service>.<aggregate>.<EventType>`. Characters a subject token may not hold
 * ('.', '*', '>', whitespace) become '_', so a stray id can never widen a subscription.
 */
export function defaultSubject(service: string, root = "argus"): SubjectOf {
  const prefix = `${root}.${token(service)}`;
  return (event) => `${prefix}.${token(aggregateOf(event.streamId))}.${token(event.type)}`;
}

/**
 * Whether a message on `subject` may carry an event of one of `types`, told from the subject
 * alone: a default subject ends in its event type's token. A consumer that acts on few types
 * then acks the rest without decoding them (a bulk write's event holds thousands of ids).
 */
export function mayCarryType(types: ReadonlySet<string>): (subject: string) => boolean {
  const tokens = new Set([...types].map(token));
  return (subject) => tokens.has(subject.slice(subject.lastIndexOf(".") + 1));
}

function token(value: string): string {
  const safe = value.replace(tokenUnsafe, "_");
  return safe === "" ? "_" : safe;
}
