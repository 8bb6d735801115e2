import { streamId } from "@argus/contracts";
import { tracedQuery, type CommandScope, type StoredEvent } from "@argus/eventstore";
import { causedBy } from "@argus/spaces";
import { dashboardDecider } from "../dashboards/dashboardDecider.ts";
import { removeWidgetsDrawing } from "../dashboards/widgetCascade.ts";
import { deleteMonitor } from "../monitors/monitorDeletion.ts";

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
  for (const m of res.rows)
    await deleteMonitor(scope, m.id, now, causedBy(event, m.account_id, m.space_id));
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
