import type { Pool, PoolClient } from "pg";
import type { MonitorSettings, MonitorStatus } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { ResourceAccess } from "@argus/platform";
import type { Monitor } from "@argus/proto/tracing/v1/monitors";
import { isUuid, type RowPlace } from "@argus/spaces";
import { settingsMessage } from "./monitorMessages.ts";

/** Monitors are read through their project's space and, when restricted, the project's bindings. */
export const MONITOR_ACCESS = {
  label: "monitor",
  read: "MONITOR_READ",
} as const satisfies ResourceAccess;

export interface MonitorRow {
  id: string;
  account_id: string;
  organization_id: string;
  space_id: string;
  project_id: string;
  settings: MonitorSettings;
  settings_at: string;
  status: MonitorStatus;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
  evaluated_at: Date | null;
  latest_value: number | null;
}

export const MONITOR_COLUMNS = `m.id, m.account_id, m.organization_id, m.space_id, m.project_id,
  m.settings, m.settings_at, m.status, m.created_by_user_id, m.created_at, m.updated_at,
  m.evaluated_at, m.latest_value`;

type Db = Pool | PoolClient;

export async function findMonitor(db: Db, id: string): Promise<MonitorRow | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await tracedQuery<MonitorRow>(
    db,
    "get monitor",
    `select ${MONITOR_COLUMNS} from monitors m where m.id = $1`,
    [id],
  );
  return res.rows[0];
}

/** Where a monitor lives: its project's space, and the project (which may be restricted). */
export const monitorPlaceOf = (r: MonitorRow): RowPlace => ({
  accountId: r.account_id,
  spaceId: r.space_id,
  projectId: r.project_id,
});

/** The endpoints of the webhooks named by these monitors' channels (from the copy). */
export async function channelUrls(
  db: Db,
  rows: readonly MonitorRow[],
): Promise<Map<string, string>> {
  const ids = [
    ...new Set(
      rows.flatMap((r) =>
        r.settings.channels.flatMap((c) => (c.type === "WEBHOOK" ? [c.webhook_id] : [])),
      ),
    ),
  ];
  if (ids.length === 0) return new Map();
  const res = await tracedQuery<{ id: string; url: string }>(
    db,
    "channel webhooks",
    "select id, url from channel_webhooks where id = any($1::uuid[])",
    [ids],
  );
  return new Map(res.rows.map((r) => [r.id, r.url]));
}

export function toMonitor(r: MonitorRow, urls: ReadonlyMap<string, string>): Monitor {
  return {
    id: r.id,
    projectId: r.project_id,
    spaceId: r.space_id,
    status: r.status,
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    evaluatedAt: r.evaluated_at?.toISOString() ?? "",
    ...(r.latest_value === null ? {} : { latestComputedValue: r.latest_value }),
    ...settingsMessage(r.settings, urls),
  };
}
