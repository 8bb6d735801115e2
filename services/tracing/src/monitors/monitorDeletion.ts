import { streamId } from "@argus/contracts";
import type { CommandScope, EventMetadata } from "@argus/eventstore";
import { removeWidgetsDrawing } from "../dashboards/widgetCascade.ts";
import { monitorDecider } from "./monitorDecider.ts";

/**
 * Deletes a monitor, whether asked to or because its project or space went: the widgets
 * charting it go with it, in the same transaction.
 */
export async function deleteMonitor(
  scope: CommandScope,
  id: string,
  now: Date,
  metadata: EventMetadata,
): Promise<void> {
  await scope.decide(
    streamId("monitor", id),
    monitorDecider,
    { type: "DeleteMonitor", now },
    metadata,
  );
  await removeWidgetsDrawing(scope, { monitorId: id }, now, metadata);
}
