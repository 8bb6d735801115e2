import type { PoolClient } from "pg";
import { streamId } from "@argus/contracts";
import {
  commandScopeIn,
  tracedQuery,
  type CommandScope,
  type Project,
  type StoredEvent,
} from "@argus/eventstore";
import type { Clock } from "@argus/platform";
import { CASCADE_ACTOR } from "@argus/spaces";
import { dashboardDecider } from "../dashboards/dashboardDecider.ts";
import { removeWidgetsDrawing } from "../dashboards/widgetCascade.ts";
import { monitorDecider } from "../monitors/monitorDecider.ts";

/** What a consumer needs to decide on the service's own streams, in its own transaction. */
export interface Cascade {
  schema: string;
  project: Project;
  clock: Clock;
}

export const scopeOf = (tx: PoolClient, c: Cascade): CommandScope =>
  commandScopeIn(tx, c.schema, c.project);

/** The metadata of what another service's event deletes or changes here. */
export const causedBy = (event: StoredEvent, accountId: string, spaceId: string) => ({
  account_id: accountId,
  space_id: spaceId,
  actor: CASCADE_ACTOR,
  cause_event_id: event.eventId,
  cause_event_type: event.type,
});

/** Deletes the monitors of a project (or of a space), and the widgets charting them. */
export async function deleteMonitors(
  scope: CommandScope,
  where: { projectId: string } | { spaceId: string },
  now: Date,
  event: StoredEvent,
): Promise<void> {
  const res = await tracedQuery<{ id: string; account_id: string; space_id: string }>(
    scope.client,
    "monitors of a deleted parent",
    "projectId" in where
      ? "select id, account_id, space_id from monitors where project_id = $1"
      : "select id, account_id, space_id from monitors where space_id = $1",
    ["projectId" in where ? where.projectId : where.spaceId],
  );
  for (const m of res.rows) {
    const metadata = causedBy(event, m.account_id, m.space_id);
    await scope.decide(
      streamId("monitor", m.id),
      monitorDecider,
      { type: "DeleteMonitor", now },
      metadata,
    );
    await removeWidgetsDrawing(scope, { monitorId: m.id }, now, metadata);
  }
}

/** Deletes a space's dashboards. */
export async function deleteDashboards(
  scope: CommandScope,
  spaceId: string,
  now: Date,
  event: StoredEvent,
): Promise<void> {
  const res = await tracedQuery<{ id: string; account_id: string }>(
    scope.client,
    "dashboards of a deleted space",
    "select id, account_id from dashboards where space_id = $1",
    [spaceId],
  );
  for (const d of res.rows)
    await scope.decide(
      streamId("dashboard", d.id),
      dashboardDecider,
      { type: "DeleteDashboard", now },
      causedBy(event, d.account_id, spaceId),
    );
}

/** A deleted project's monitors, and the widgets charting it or them. */
export async function deleteProjectDependents(
  scope: CommandScope,
  project: { id: string; accountId: string; spaceId: string },
  now: Date,
  event: StoredEvent,
): Promise<void> {
  await deleteMonitors(scope, { projectId: project.id }, now, event);
  await removeWidgetsDrawing(
    scope,
    { projectId: project.id },
    now,
    causedBy(event, project.accountId, project.spaceId),
  );
}
