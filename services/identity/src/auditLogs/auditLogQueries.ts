import {
  DomainError,
  fetchSize,
  pageOf,
  requireAccountAdmin,
  type CallContext,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  AuditLogEntry,
  ListAuditLogsRequest,
  ListAuditLogsResponse,
} from "@argus/proto/identity/v1/audit";
import type { IdentityDeps } from "../deps.ts";

/** The public API's default window: the 30 days before `end_time`. */
export const DEFAULT_WINDOW_MS = 30 * 24 * 3600 * 1000;

interface AuditRow {
  id: string;
  actor_user_id: string | null;
  actor_service_account_id: string | null;
  api_key_id: string | null;
  client_ip: string;
  request_id: string;
  operation_name: string;
  operation_type: string;
  resource_type: string;
  resource_id: string;
  variables: unknown;
  occurred_at: Date;
}

function toEntry(r: AuditRow): AuditLogEntry {
  return {
    id: r.id,
    userId: r.actor_user_id ?? "",
    serviceAccountId: r.actor_service_account_id ?? "",
    apiKeyId: r.api_key_id ?? "",
    clientIp: r.client_ip,
    requestId: r.request_id,
    operationName: r.operation_name,
    operationType: r.operation_type,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    variables: JSON.stringify(r.variables),
    createdAt: r.occurred_at.toISOString(),
  };
}

function parseTime(value: string, field: string): Date | null {
  if (value === "") return null;
  const t = new Date(value);
  if (Number.isNaN(t.getTime()))
    throw new DomainError("invalid-request", `${field} is not a date-time`);
  return t;
}

/** Pure: the inclusive window a request asks for, with the public API's defaults. */
export function auditWindow(
  startTime: string,
  endTime: string,
  now: Date,
): { start: Date; end: Date } {
  const end = parseTime(endTime, "end_time") ?? now;
  const start = parseTime(startTime, "start_time") ?? new Date(end.getTime() - DEFAULT_WINDOW_MS);
  if (start > end)
    throw new DomainError("invalid-request", "start_time must not be after end_time");
  return { start, end };
}

export function auditQueries(deps: Pick<IdentityDeps, "pool" | "clock">) {
  return {
    async listAuditLogs(
      req: ListAuditLogsRequest,
      ctx: CallContext,
    ): Promise<ListAuditLogsResponse> {
      requireAccountAdmin(ctx.principal, "reading the audit log");
      const { start, end } = auditWindow(req.startTime, req.endTime, deps.clock.now());
      const res = await tracedQuery<AuditRow>(
        deps.pool,
        "list audit logs",
        `select id, actor_user_id, actor_service_account_id, api_key_id, client_ip, request_id,
                operation_name, operation_type, resource_type, resource_id,
                coalesce(variables_json, variables::json) as variables, occurred_at
           from audit_log
          where account_id = $1 and occurred_at between $2 and $3
            and ($4::uuid is null or actor_user_id = $4)
            and ($5::text is null or operation_type = $5)
            and ($6::text[] is null or operation_name = any($6::text[]))
            and ($7::uuid is null or id < $7)
          order by id desc
          limit $8`,
        [
          ctx.principal.accountId,
          start,
          end,
          req.userId || null,
          req.operationType || null,
          req.operationNames.length > 0
            ? req.operationNames
            : req.operationName
              ? [req.operationName]
              : null,
          req.page?.after || null,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { logs: items.map(toEntry), page: { nextAfter } };
    },
  };
}
