import type { DashboardEvent, WidgetSpec } from "@argus/contracts";
import { tracedQuery, type Projections } from "@argus/eventstore";
import { projectsOf } from "./dashboardRules.ts";

/** The spec as stored: what the widget draws, without its identity and times. */
const specOf = (d: WidgetSpec): WidgetSpec => ({
  type: d.type,
  title: d.title,
  grid_position: d.grid_position,
  creation_status: d.creation_status,
  widget_type: d.widget_type,
  plots: d.plots,
  monitor_id: d.monitor_id,
  statistic: d.statistic,
  custom_statistic_text: d.custom_statistic_text,
  content: d.content,
  display: d.display,
});

export const dashboardProjections: Projections<DashboardEvent> = {
  DashboardCreated: (client, d) =>
    tracedQuery(
      client,
      "dashboard created",
      `insert into dashboards (id, account_id, space_id, name, description, created_by_user_id,
         created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [d.id, d.account_id, d.space_id, d.name, d.description, d.created_by_user_id, d.created_at],
    ),
  DashboardUpdated: (client, d) =>
    tracedQuery(
      client,
      "dashboard updated",
      "update dashboards set name = $2, description = $3, updated_at = $4 where id = $1",
      [d.id, d.name, d.description, d.updated_at],
    ),
  // Its widgets go with it (foreign key).
  DashboardDeleted: (client, d) =>
    tracedQuery(client, "dashboard deleted", "delete from dashboards where id = $1", [d.id]),
  WidgetAdded: (client, d) =>
    tracedQuery(
      client,
      "widget added",
      `insert into dashboard_widgets (id, dashboard_id, type, spec, project_ids, monitor_id,
         creator_user_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [
        d.id,
        d.dashboard_id,
        d.type,
        JSON.stringify(specOf(d)),
        projectsOf(d),
        d.monitor_id,
        d.creator_user_id,
        d.created_at,
      ],
    ),
  WidgetChanged: (client, d) =>
    tracedQuery(
      client,
      "widget changed",
      `update dashboard_widgets set spec = $2, project_ids = $3, monitor_id = $4, updated_at = $5
        where id = $1`,
      [d.id, JSON.stringify(specOf(d)), projectsOf(d), d.monitor_id, d.updated_at],
    ),
  WidgetRemoved: (client, d) =>
    tracedQuery(client, "widget removed", "delete from dashboard_widgets where id = $1", [d.id]),
};
