import { DomainError, decodeId, encodeId, isUuidAnyCase } from "@argus/platform";
import { AuditServiceService, type AuditLogEntry } from "@argus/proto/identity/v1/audit";
import type { Aggregate } from "@argus/contracts";
import type { Backend } from "../backend.ts";
import type { ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";
import { utcText } from "./params.ts";

/**
 * Each stream's aggregate (`<aggregate>-<uuid>`) → the public id type of the resource its uuid
 * names, so that an entry's resource id is the id the API answers elsewhere. A set's stream is
 * named by its owner (a dataset's examples, a project's spans); a restriction's and a resource's
 * tags name a resource of the type their event says (`resource_type`).
 */
const ID_TYPES: Record<Aggregate, string | null> = {
  account: "Account",
  organization: "Organization",
  space: "Space",
  user: "User",
  role: "Role",
  role_binding: "RoleBinding",
  restriction: null,
  service_account: "ServiceAccount",
  api_key: "ApiKey",
  tag: "Tag",
  resource_tags: null,
  project: "Project",
  prompt: "Prompt",
  evaluator: "Evaluator",
  annotation_config: "AnnotationConfig",
  annotation_queue: "AnnotationQueue",
  ai_integration: "AiIntegration",
  integration: "Integration",
  dataset: "Dataset",
  dataset_examples: "Dataset",
  experiment: "Experiment",
  experiment_runs: "Experiment",
  project_spans: "Project",
  monitor: "Monitor",
  dashboard: "Dashboard",
  webhook: "Webhook",
  webhook_subscription: "WebhookSubscription",
  task: "Task",
  task_run: "TaskRun",
};

const idTypeOf = (aggregate: string): string | null | undefined =>
  Object.hasOwn(ID_TYPES, aggregate) ? ID_TYPES[aggregate as Aggregate] : undefined;

/** The resource type an event's data names (`PROJECT`, `annotation_queue`), as an id type. */
function namedType(variables: string | undefined): string | undefined {
  try {
    const named = (JSON.parse(variables ?? "null") as { resource_type?: unknown } | null)
      ?.resource_type;
    return typeof named === "string" ? (idTypeOf(named.toLowerCase()) ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

function publicResourceId(e: AuditLogEntry): string {
  if (!isUuidAnyCase(e.resourceId)) return e.resourceId;
  const type = idTypeOf(e.resourceType);
  // A restriction lifted before its event named the type: a project's, as most are.
  const idType = type === null ? (namedType(e.variables) ?? "Project") : type;
  // An aggregate this gateway does not know yet (a newer service's): its name, capitalized.
  return encodeId(
    idType ?? e.resourceType.charAt(0).toUpperCase() + e.resourceType.slice(1),
    e.resourceId,
  );
}

function toPublicAuditLog(e: AuditLogEntry) {
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
    variables: e.variables,
    resource_type: e.resourceType,
    resource_id: publicResourceId(e),
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
