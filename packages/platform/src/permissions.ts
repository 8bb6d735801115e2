/**
 * The permission identifiers of the spec (Role schema) and the permission sets of the
 * predefined space roles: the ONE place in code that defines them (README "Roles and
 * permissions" shows the same table).
 */
export const PERMISSIONS = [
  "AGENT_ROLE_CREATE",
  "AGENT_ROLE_DELETE",
  "AGENT_ROLE_READ",
  "AGENT_ROLE_UPDATE",
  "AI_PROVIDER_READ",
  "ALYX_RUN",
  "ANNOTATION_CONFIG_CREATE",
  "ANNOTATION_CONFIG_DELETE",
  "ANNOTATION_CONFIG_READ",
  "ANNOTATION_CONFIG_UPDATE",
  "COST_CONFIG_CREATE",
  "COST_CONFIG_DELETE",
  "COST_CONFIG_READ",
  "COST_CONFIG_UPDATE",
  "CUSTOM_METRIC_CREATE",
  "CUSTOM_METRIC_DELETE",
  "CUSTOM_METRIC_READ",
  "CUSTOM_METRIC_UPDATE",
  "DASHBOARD_CREATE",
  "DASHBOARD_DELETE",
  "DASHBOARD_READ",
  "DASHBOARD_RESTRICT",
  "DASHBOARD_TEMPLATE_CREATE",
  "DASHBOARD_TEMPLATE_DELETE",
  "DASHBOARD_TEMPLATE_READ",
  "DASHBOARD_TEMPLATE_UPDATE",
  "DASHBOARD_UPDATE",
  "DATASET_CREATE",
  "DATASET_DELETE",
  "DATASET_EXAMPLE_ANNOTATE",
  "DATASET_EXAMPLE_CREATE",
  "DATASET_EXAMPLE_DELETE",
  "DATASET_EXAMPLE_READ",
  "DATASET_EXAMPLE_UPDATE",
  "DATASET_READ",
  "DATASET_UPDATE",
  "DATASET_VIEW_CREATE",
  "DATASET_VIEW_DELETE",
  "DATASET_VIEW_READ",
  "DATASET_VIEW_UPDATE",
  "DATA_FABRIC_CONNECTOR_CREATE",
  "DATA_FABRIC_CONNECTOR_DELETE",
  "DATA_FABRIC_CONNECTOR_READ",
  "DATA_FABRIC_CONNECTOR_UPDATE",
  "EVALUATOR_CREATE",
  "EVALUATOR_DELETE",
  "EVALUATOR_READ",
  "EVALUATOR_UPDATE",
  "EXPERIMENT_CREATE",
  "EXPERIMENT_DELETE",
  "EXPERIMENT_EVAL_TASK_CREATE",
  "EXPERIMENT_EVAL_TASK_DELETE",
  "EXPERIMENT_EVAL_TASK_READ",
  "EXPERIMENT_EVAL_TASK_UPDATE",
  "EXPERIMENT_READ",
  "EXPERIMENT_RUN_ANNOTATE",
  "EXPERIMENT_RUN_READ",
  "EXPERIMENT_UPDATE",
  "FILE_IMPORT_CREATE",
  "FILE_IMPORT_DELETE",
  "FILE_IMPORT_READ",
  "FILE_IMPORT_UPDATE",
  "LLM_INTEGRATION_CREATE",
  "LLM_INTEGRATION_DELETE",
  "LLM_INTEGRATION_UPDATE",
  "MANAGED_AGENT_CREATE",
  "MANAGED_AGENT_DELETE",
  "MANAGED_AGENT_READ",
  "MANAGED_AGENT_UPDATE",
  "ML_MODEL_CREATE",
  "ML_MODEL_DELETE",
  "ML_MODEL_READ",
  "ML_MODEL_UPDATE",
  "MONITOR_CREATE",
  "MONITOR_DELETE",
  "MONITOR_READ",
  "MONITOR_TRIGGER",
  "MONITOR_UPDATE",
  "ORGANIZATION_CREATE",
  "ORGANIZATION_DELETE",
  "ORGANIZATION_READ",
  "ORGANIZATION_UPDATE",
  "PLAYGROUND_RUN",
  "PLAYGROUND_VIEW_CREATE",
  "PLAYGROUND_VIEW_DELETE",
  "PLAYGROUND_VIEW_READ",
  "PLAYGROUND_VIEW_UPDATE",
  "PROJECT_CREATE",
  "PROJECT_DELETE",
  "PROJECT_EVAL_TASK_CREATE",
  "PROJECT_EVAL_TASK_DELETE",
  "PROJECT_EVAL_TASK_READ",
  "PROJECT_EVAL_TASK_UPDATE",
  "PROJECT_READ",
  "PROJECT_RESTRICT",
  "PROJECT_SPAN_ANNOTATE",
  "PROJECT_SPAN_CREATE",
  "PROJECT_SPAN_DELETE",
  "PROJECT_SPAN_EVAL_FEEDBACK_UPDATE",
  "PROJECT_SPAN_READ",
  "PROJECT_SPAN_UPDATE",
  "PROJECT_UPDATE",
  "PROMPT_CREATE",
  "PROMPT_DELETE",
  "PROMPT_OPTIMIZE_TASK_CREATE",
  "PROMPT_OPTIMIZE_TASK_DELETE",
  "PROMPT_OPTIMIZE_TASK_READ",
  "PROMPT_OPTIMIZE_TASK_UPDATE",
  "PROMPT_READ",
  "PROMPT_RESTRICT",
  "PROMPT_UPDATE",
  "QUEUE_CREATE",
  "QUEUE_DELETE",
  "QUEUE_READ",
  "QUEUE_RECORD_ANNOTATE",
  "QUEUE_RECORD_CREATE",
  "QUEUE_RECORD_DELETE",
  "QUEUE_RECORD_READ",
  "QUEUE_RECORD_UPDATE",
  "QUEUE_UPDATE",
  "REMOTE_ENDPOINT_INTEGRATION_CREATE",
  "REMOTE_ENDPOINT_INTEGRATION_DELETE",
  "REMOTE_ENDPOINT_INTEGRATION_READ",
  "REMOTE_ENDPOINT_INTEGRATION_UPDATE",
  "ROLE_BINDING_CREATE",
  "ROLE_BINDING_DELETE",
  "ROLE_BINDING_READ",
  "ROLE_CREATE",
  "ROLE_DELETE",
  "ROLE_READ",
  "ROLE_UPDATE",
  "SERVICE_KEY_CREATE",
  "SERVICE_KEY_READ",
  "SERVICE_KEY_REVOKE",
  "SPACE_CREATE",
  "SPACE_DELETE",
  "SPACE_READ",
  "SPACE_UPDATE",
  "TAG_CREATE",
  "TAG_DELETE",
  "TAG_READ",
  "TAG_UPDATE",
  "TRACE_VIEW_CREATE",
  "TRACE_VIEW_DELETE",
  "TRACE_VIEW_READ",
  "TRACE_VIEW_UPDATE",
  "USER_CREATE",
  "USER_DELETE",
  "USER_PERMISSION_UPDATE",
  "USER_READ",
  "USER_UPDATE",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const PERMISSION_SET: ReadonlySet<string> = new Set(PERMISSIONS);

export function isPermission(value: string): value is Permission {
  return PERMISSION_SET.has(value);
}

/**
 * Permissions that act on the account as a whole (organizations, users, custom roles,
 * space creation): no predefined space role grants them. A custom role may, and a space
 * binding of it counts account-wide (`holdsAnywhere`), so only account admins bind such a
 * role (identity's `requireBindableRole`).
 */
export const ACCOUNT_PERMISSIONS: readonly Permission[] = [
  "ORGANIZATION_CREATE",
  "ORGANIZATION_DELETE",
  "ORGANIZATION_UPDATE",
  "SPACE_CREATE",
  "USER_CREATE",
  "USER_DELETE",
  "USER_PERMISSION_UPDATE",
  "USER_UPDATE",
  "ROLE_CREATE",
  "ROLE_DELETE",
  "ROLE_UPDATE",
];

const SPACE_SCOPED: readonly Permission[] = PERMISSIONS.filter(
  (p) => !ACCOUNT_PERMISSIONS.includes(p),
);

/** Managing the space itself, its members and restrictions: space admins only. */
const SPACE_MANAGEMENT: readonly Permission[] = [
  "SPACE_UPDATE",
  "SPACE_DELETE",
  "ROLE_BINDING_CREATE",
  "ROLE_BINDING_DELETE",
  "PROJECT_RESTRICT",
  "DASHBOARD_RESTRICT",
  "PROMPT_RESTRICT",
];

const ANNOTATOR_PERMISSIONS: readonly Permission[] = [
  "SPACE_READ",
  "ORGANIZATION_READ",
  "PROJECT_READ",
  "PROJECT_SPAN_READ",
  "PROJECT_SPAN_ANNOTATE",
  "DATASET_READ",
  "DATASET_EXAMPLE_READ",
  "DATASET_EXAMPLE_ANNOTATE",
  "EXPERIMENT_READ",
  "EXPERIMENT_RUN_READ",
  "EXPERIMENT_RUN_ANNOTATE",
  "QUEUE_READ",
  "QUEUE_RECORD_READ",
  "QUEUE_RECORD_ANNOTATE",
  "ANNOTATION_CONFIG_READ",
  "TAG_READ",
];

/** Names of the predefined space roles, as the public API's UserSpaceRole. */
export type SpaceRoleName = "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR";

export interface PredefinedRole {
  /** Fixed so every installation (and every test) knows them without a lookup. */
  id: string;
  name: SpaceRoleName;
  description: string;
  permissions: readonly Permission[];
}

export const PREDEFINED_ROLES: readonly PredefinedRole[] = [
  {
    id: "00000000-0000-7000-8000-000000000001",
    name: "ADMIN",
    description: "Manages the space: everything in it, its members, bindings and restrictions.",
    permissions: SPACE_SCOPED,
  },
  {
    id: "00000000-0000-7000-8000-000000000002",
    name: "MEMBER",
    description: "Works in the space: reads, creates, updates and deletes its resources.",
    permissions: SPACE_SCOPED.filter((p) => !SPACE_MANAGEMENT.includes(p)),
  },
  {
    id: "00000000-0000-7000-8000-000000000003",
    name: "READ_ONLY",
    description: "Reads everything in the space, changes nothing.",
    permissions: SPACE_SCOPED.filter((p) => p.endsWith("_READ")),
  },
  {
    id: "00000000-0000-7000-8000-000000000004",
    name: "ANNOTATOR",
    description:
      "Reads what is to be annotated and annotates spans, examples, runs and queue records.",
    permissions: ANNOTATOR_PERMISSIONS,
  },
];

export function predefinedRole(name: SpaceRoleName): PredefinedRole {
  return PREDEFINED_ROLES.find((r) => r.name === name)!;
}

/**
 * What an account role implies in every space, before role bindings:
 * - admin: everything in the account (handled by isAccountAdmin, not by this map);
 * - member: READ_ONLY in every public space (they see public spaces);
 * - annotator: nothing; and whatever their bindings grant is capped to ANNOTATOR.
 */
export const MEMBER_PUBLIC_SPACE_PERMISSIONS: readonly Permission[] =
  predefinedRole("READ_ONLY").permissions;
export const ANNOTATOR_CEILING: readonly Permission[] = ANNOTATOR_PERMISSIONS;
