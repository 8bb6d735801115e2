import type { PoolClient } from "pg";
import { runStatement } from "../schema/tracedQuery.ts";
import { readBack, type ProjectionStatement } from "./projectionStatement.ts";
import type { DomainEvent } from "./decider.ts";
import type { AppendedEvent, Project } from "./handleCommand.ts";

/** A projection that is one statement (`ProjectionStatement`). */
export interface StatementProjection<Data> {
  statement: (data: Data) => ProjectionStatement;
}

type ProjectionOf<Data> =
  | ((client: PoolClient, data: Data, appended: AppendedEvent) => Promise<unknown>)
  | StatementProjection<Data>;

/**
 * One inline projection per event type, each given exactly that event's data, and the event as
 * appended (its row: `event_id` in the service's `events`).
 */
export type Projections<E extends DomainEvent> = {
  [T in E["type"]]: ProjectionOf<Extract<E, { type: T }>["data"]>;
};

/**
 * A service's inline projections as one `Project`: each event goes to the projection of its
 * type, and an event no projection knows is an error (it would leave the tables behind).
 */
export function projector<E extends DomainEvent>(
  service: string,
  projections: Projections<E>,
): Project {
  const byType = projections as unknown as Record<string, ProjectionOf<object> | undefined>;
  const projectionOf = (event: DomainEvent) => {
    const apply = byType[event.type];
    if (!apply) throw new Error(`${service} projection does not know event ${event.type}`);
    return apply;
  };
  const project: Project = async (client, events, schema) => {
    for (const event of events) {
      const apply = projectionOf(event);
      if (typeof apply === "function") await apply(client, event.data, event);
      else await runStatement(client, readBack(apply.statement(event.data), schema, event.eventId));
    }
  };
  project.statements = (events) => {
    const statements: ProjectionStatement[] = [];
    for (const event of events) {
      const apply = projectionOf(event);
      if (typeof apply === "function") return undefined;
      statements.push(apply.statement(event.data));
    }
    return statements;
  };
  return project;
}
