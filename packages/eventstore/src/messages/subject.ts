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

function token(value: string): string {
  const safe = value.replace(tokenUnsafe, "_");
  return safe === "" ? "_" : safe;
}
