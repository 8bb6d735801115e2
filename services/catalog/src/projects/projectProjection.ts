import { tracedQuery, type Projections } from "@argus/eventstore";
import type { ProjectEvent } from "@argus/contracts";
import { registerResource, unregisterResource } from "../shared/resourceRegistry.ts";

/** Projects, registered in the resource registry so they can carry tags. */
export const projectProjections: Projections<ProjectEvent> = {
  async ProjectCreated(client, d) {
    await tracedQuery(
      client,
      "project ProjectCreated",
      `insert into projects (id, account_id, space_id, name, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $5)`,
      [d.id, d.account_id, d.space_id, d.name, d.created_at],
    );
    await registerResource(client, "project", d);
  },
  ProjectUpdated: (client, d) =>
    tracedQuery(
      client,
      "project ProjectUpdated",
      "update projects set name = $2, updated_at = $3 where id = $1",
      [d.id, d.name, d.updated_at],
    ),
  async ProjectDeleted(client, d) {
    await tracedQuery(client, "project ProjectDeleted", "delete from projects where id = $1", [
      d.id,
    ]);
    await unregisterResource(client, "project", d.id);
  },
};
