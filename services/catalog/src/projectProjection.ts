import { tracedQuery } from "@argus/eventstore";
import type { Projection } from "./projection.ts";
import { registerResource, unregisterResource } from "./resources.ts";

/** Projects, registered in the resource registry so they can carry tags. */
export const projectProjections: Record<string, Projection> = {
  ProjectCreated: async (client, d) => {
    await tracedQuery(
      client,
      "project ProjectCreated",
      `insert into projects (id, account_id, space_id, name, version, created_at, updated_at)
           values ($1, $2, $3, $4, 1, $5, $5)`,
      [d.id, d.account_id, d.space_id, d.name, d.created_at],
    );
    await registerResource(client, {
      type: "project",
      id: d.id as string,
      accountId: d.account_id as string,
      spaceId: d.space_id as string,
    });
  },
  ProjectUpdated: (client, d) =>
    tracedQuery(
      client,
      "project ProjectUpdated",
      "update projects set name = $2, updated_at = $3, version = version + 1 where id = $1",
      [d.id, d.name, d.updated_at],
    ),
  ProjectDeleted: async (client, d) => {
    await tracedQuery(client, "project ProjectDeleted", "delete from projects where id = $1", [
      d.id,
    ]);
    await unregisterResource(client, "project", d.id as string);
  },
};
