import type { PoolClient } from "pg";
import type { DomainEvent } from "./decider.ts";
import type { AppendedEvent, Project } from "./handleCommand.ts";

/**
 * One inline projection per event type, each given exactly that event's data, and the event as
 * appended (its row: `global_position` in the service's `events`).
 */
export type Projections<E extends DomainEvent> = {
  [T in E["type"]]: (
    client: PoolClient,
    data: Extract<E, { type: T }>["data"],
    appended: AppendedEvent,
  ) => Promise<unknown>;
};

/**
 * A service's inline projections as one `Project`: each event goes to the projection of its
 * type, and an event no projection knows is an error (it would leave the tables behind).
 */
export function projector<E extends DomainEvent>(
  service: string,
  projections: Projections<E>,
): Project {
  const byType = projections as unknown as Record<
    string,
    ((client: PoolClient, data: object, appended: AppendedEvent) => Promise<unknown>) | undefined
  >;
  return async (client, events) => {
    for (const event of events) {
      const apply = byType[event.type];
      if (!apply) throw new Error(`${service} projection does not know event ${event.type}`);
      await apply(client, event.data, event);
    }
  };
}
