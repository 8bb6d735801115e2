import type { PoolClient } from "pg";
import type { MonitorEvent, MonitorSettings } from "@argus/contracts";
import { tracedQuery, type Projections } from "@argus/eventstore";
import { firstRunAt } from "./monitorRules.ts";

/** Postgres channel a monitor made due at once is announced on: an idle scheduler starts it. */
export const MONITORS_CHANNEL = "argus_monitors_due";

/**
 * A monitor made or changed is due at once when its schedule evaluates it (a change may be of
 * what it computes); otherwise it has no schedule row. A replica holding the old settings
 * finds them changed and drops its evaluation (monitorDecider `StaleEvaluation`).
 */
async function schedule(client: PoolClient, id: string, s: MonitorSettings, at: string) {
  const due = firstRunAt(s, new Date(at));
  if (due === null)
    return tracedQuery(
      client,
      "unschedule monitor",
      "delete from monitor_schedule where monitor_id = $1",
      [id],
    );
  await tracedQuery(
    client,
    "schedule monitor",
    `insert into monitor_schedule (monitor_id, next_run_at) values ($1, $2)
     on conflict (monitor_id) do update set next_run_at = excluded.next_run_at, lease_until = null`,
    [id, due],
  );
  await tracedQuery(client, "announce monitor", "select pg_notify($1, '')", [MONITORS_CHANNEL]);
}

const columns = (s: MonitorSettings) => [
  s.name,
  JSON.stringify(s),
  s.metric,
  s.dimension.category,
  s.dimension.name,
  s.notifications_enabled,
];

export const monitorProjections: Projections<MonitorEvent> = {
  MonitorCreated: async (client, d) => {
    await tracedQuery(
      client,
      "monitor created",
      `insert into monitors (id, account_id, organization_id, space_id, project_id, name, settings,
         metric, dimension_category, dimension_name, notifications_enabled, settings_at,
         created_by_user_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text, $13, $12::timestamptz,
               $12::timestamptz)`,
      [
        d.id,
        d.account_id,
        d.organization_id,
        d.space_id,
        d.project_id,
        ...columns(d),
        d.created_at,
        d.created_by_user_id,
      ],
    );
    await schedule(client, d.id, d, d.created_at);
  },
  MonitorUpdated: async (client, d) => {
    await tracedQuery(
      client,
      "monitor updated",
      `update monitors set name = $2, settings = $3, metric = $4, dimension_category = $5,
              dimension_name = $6, notifications_enabled = $7, settings_at = $8::text,
              updated_at = $8::timestamptz
        where id = $1`,
      [d.id, ...columns(d), d.updated_at],
    );
    await schedule(client, d.id, d, d.updated_at);
  },
  // Its schedule and history go with it (foreign keys).
  MonitorDeleted: (client, d) =>
    tracedQuery(client, "monitor deleted", "delete from monitors where id = $1", [d.id]),
  MonitorStatusChanged: (client, d) =>
    tracedQuery(client, "monitor status", "update monitors set status = $2 where id = $1", [
      d.id,
      d.status,
    ]),
};
