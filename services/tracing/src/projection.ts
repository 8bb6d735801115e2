import { projector } from "@argus/eventstore";
import type { DashboardEvent, MonitorEvent, TracingEvent } from "@argus/contracts";
import { dashboardProjections } from "./dashboards/dashboardProjection.ts";
import { monitorProjections } from "./monitors/monitorProjection.ts";
import { spanProjections } from "./spans/spanProjection.ts";

/**
 * The tracing service's inline projections, written in the transaction of their events: each
 * resource brings the projections of its own events, and the compiler checks none is missing.
 */
export const project = projector<TracingEvent | MonitorEvent | DashboardEvent>("tracing", {
  ...spanProjections,
  ...monitorProjections,
  ...dashboardProjections,
});
