import type { PoolClient } from "pg";
import type { DomainEvent } from "./decider.ts";
import type { Project } from "./handleCommand.ts";

/** One inline projection per event type, each given exactly that event's data. */
export type Projections<E extends DomainEvent> = {
  [T in E["type"]]: (client: PoolClient, data: Extract<E, { type: T }>["data"]) => Promise<unknown>;
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
    ((client: PoolClient, data: object) => Promise<unknown>) | undefined
  >;
  return async (client, events) => {
    for (const { type, data } of events) {
      const apply = byType[type];
      if (!apply) throw new Error(`${service} projection does not know event ${type}`);
      await apply(client, data);
    }
  };
}
