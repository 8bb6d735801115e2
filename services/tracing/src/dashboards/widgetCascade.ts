import { streamId } from "@argus/contracts";
import { tracedQuery, type CommandScope, type EventMetadata } from "@argus/eventstore";
import { dashboardDecider } from "./dashboardDecider.ts";

/**
 * A widget draws from projects and monitors: when one of them is deleted, the widgets drawing
 * from it are removed from their dashboards, in the transaction of the deletion.
 */
export async function removeWidgetsDrawing(
  scope: CommandScope,
  source: { projectId: string } | { monitorId: string },
  now: Date,
  metadata: EventMetadata,
): Promise<void> {
  const res = await tracedQuery<{ id: string; dashboard_id: string }>(
    scope.client,
    "widgets drawing from a deleted source",
    "projectId" in source
      ? "select id, dashboard_id from dashboard_widgets where project_ids @> array[$1::uuid]"
      : "select id, dashboard_id from dashboard_widgets where monitor_id = $1",
    ["projectId" in source ? source.projectId : source.monitorId],
  );
  for (const w of res.rows)
    await scope.decide(
      streamId("dashboard", w.dashboard_id),
      dashboardDecider,
      { type: "RemoveWidget", widgetId: w.id, now, ifPresent: true },
      metadata,
    );
}
