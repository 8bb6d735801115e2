import type { DomainEvent } from "@argus/eventstore";

/** The data of the event of `type` a decision made (e.g. the Created event a create decided). */
export function dataOf<E extends DomainEvent, T extends E["type"]>(
  events: readonly E[],
  type: T,
): Extract<E, { type: T }>["data"] {
  const event = events.find((e) => e.type === type);
  if (!event) throw new Error(`the decision holds no ${type}`);
  return event.data;
}
