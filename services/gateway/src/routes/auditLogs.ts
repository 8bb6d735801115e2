import { DomainError, decodeId, encodeId } from "@argus/platform";
import { AuditServiceService, type AuditLogEntry } from "@argus/proto/identity/v1/audit";
import type { Backend } from "../backend.ts";
import type { ResourceHandlers } from "../http/handler.ts";
import { publicEntryIds } from "./auditIds.ts";
import { listPage } from "./listPage.ts";
import { utcText } from "./params.ts";

function toPublicAuditLog(e: AuditLogEntry) {
  const { resourceId, variables } = publicEntryIds(e);
  return {
    id: encodeId("AuditLog", e.id),
    user_id: e.userId ? encodeId("User", e.userId) : null,
    ...(e.serviceAccountId
      ? { service_account_id: encodeId("ServiceAccount", e.serviceAccountId) }
      : {}),
    ...(e.apiKeyId ? { api_key_id: encodeId("ApiKey", e.apiKeyId) } : {}),
    ip: e.clientIp,
    request_id: e.requestId,
    operation_type: e.operationType,
    operation_name: e.operationName,
    operation_text: null,
    variables,
    resource_type: e.resourceType,
    resource_id: resourceId,
    created_at: e.createdAt,
  };
}

export function auditLogHandlers(identity: Backend): ResourceHandlers<"audit-logs"> {
  return {
    async list_audit_logs(req) {
      const userId = req.query.user_id;
      const userUuid = userId === undefined ? "" : decodeId("User", userId);
      // A filter, not a path: an id of another type (a service account's) is a bad parameter,
      // one of the public API's answers (400); a user with no entries lists none.
      if (userUuid === null)
        throw new DomainError("invalid-request", "query parameter 'user_id' is not a user id");
      const res = await identity.call(
        AuditServiceService.listAuditLogs,
        {
          page: req.page,
          startTime: utcText(req.query.start_time, "start_time"),
          endTime: utcText(req.query.end_time, "end_time"),
          userId: userUuid,
          operationType: req.query.operation_type ?? "",
          operationName: "",
          operationNames: req.query.operation_name ?? [],
        },
        req,
      );
      return listPage("logs", res.logs.map(toPublicAuditLog), res.page);
    },
  };
}
