import { encodeId, isUuidAnyCase } from "@argus/platform";
import type { Aggregate } from "@argus/contracts";

/*
 * An audit entry names its resource and carries its event's data (`variables`); both hold the
 * services' uuids, and both answer with the ids the API answers elsewhere (`encodeId`). Which
 * type a uuid is follows from where it sits: its key, the event's stream, a sibling `*_type`.
 * Only the event's own structure is read: user content (an example's fields, a prompt's
 * messages, a record's data) is never rewritten, whatever uuids it holds.
 */

/**
 * Each stream's aggregate (`<aggregate>-<uuid>`) → the public id type of the resource its uuid
 * names. A set's stream is named by its owner (a dataset's examples, a project's spans); a
 * restriction's and a resource's tags name a resource of the type their event says
 * (`resource_type`).
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

/** A `*_type` value (`PROJECT`, `annotation_queue`, `ONLINE_TASK`, `SERVICE_ACCOUNT`) as an id type. */
function namedType(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  if (value === "ONLINE_TASK") return "Task";
  return idTypeOf(value.toLowerCase()) ?? undefined;
}

/** Keys that name one type wherever an event has them. */
const KEY_TYPES: Record<string, string> = {
  account_id: "Account",
  organization_id: "Organization",
  space_id: "Space",
  user_id: "User",
  created_by_user_id: "User",
  creator_user_id: "User",
  annotator_id: "User",
  service_account_id: "ServiceAccount",
  api_key_id: "ApiKey",
  role_id: "Role",
  project_id: "Project",
  dataset_id: "Dataset",
  dataset_version_id: "DatasetVersion",
  experiment_id: "Experiment",
  experiment_ids: "Experiment",
  experiment_dataset_id: "Dataset",
  example_id: "DatasetExample",
  example_ids: "DatasetExample",
  run_id: "ExperimentRun",
  prompt_id: "Prompt",
  evaluator_id: "Evaluator",
  evaluator_version_id: "EvaluatorVersion",
  queue_id: "AnnotationQueue",
  annotation_config_ids: "AnnotationConfig",
  tag_ids: "Tag",
  task_id: "Task",
  evaluation_task_ids: "Task",
  webhook_id: "Webhook",
  monitor_id: "Monitor",
  dashboard_id: "Dashboard",
  integration_id: "Integration",
  ai_integration_id: "AiIntegration",
  evaluation_id: "MonitorEvaluation",
};

/** Keys whose type is the stream's: a version of a dataset, a prompt or an evaluator. */
const VERSION_KEYS = new Set([
  "version_id",
  "version_ids",
  "parent_version_id",
  "previous_version_id",
]);
const VERSION_TYPES: Partial<Record<string, string>> = {
  dataset: "DatasetVersion",
  dataset_examples: "DatasetVersion",
  prompt: "PromptVersion",
  evaluator: "EvaluatorVersion",
  // A run's evaluators, each at the version it runs.
  task_run: "EvaluatorVersion",
};
/** …and a record: an example, a run, a queue's record. */
const RECORD_KEYS = new Set(["record_id", "record_ids"]);
const RECORD_TYPES: Partial<Record<string, string>> = {
  dataset_examples: "DatasetExample",
  experiment_runs: "ExperimentRun",
  annotation_queue: "AnnotationQueueRecord",
};
/** Keys typed by a sibling: `resource_type`, `subject_type`, `source_type`. */
const SIBLING_TYPED: Record<string, string> = {
  resource_id: "resource_type",
  subject_id: "subject_type",
  source_id: "source_type",
};

/**
 * The event's structure: the keys whose items are read as the event's own objects, with the
 * type their `id` names (null: they have none). Anything else is a value, read no further.
 */
const NESTED: Record<string, string | null> = {
  examples: "DatasetExample",
  runs: "ExperimentRun",
  records: "AnnotationQueueRecord",
  annotations: null,
  evaluations: null,
  annotators: null,
  assignees: null,
  annotator: null,
  evaluators: null,
  scopings: null,
  // What a queue's record points at (a span, an example), a task's model, a run's options.
  data: null,
  run_configuration: null,
  options: null,
  chained: null,
};

/** A top-level `id` that is not the stream's resource: what the event created in it. */
const CREATED_TYPES: Partial<Record<string, string>> = {
  DatasetVersionCreated: "DatasetVersion",
  PromptVersionCreated: "PromptVersion",
  EvaluatorVersionCreated: "EvaluatorVersion",
  ServiceAccountRoleGranted: "RoleBinding",
  WidgetAdded: "Widget",
  WidgetChanged: "Widget",
  WidgetRemoved: "Widget",
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** An entry as identity answers it, with the ids as the services keep them. */
export interface StoredEntry {
  resourceType: string;
  resourceId: string;
  operationName: string;
  variables: string;
}

/** The entry's resource id and variables with public ids. */
export function publicEntryIds(e: StoredEntry): { resourceId: string; variables: string } {
  let data: unknown;
  try {
    data = JSON.parse(e.variables || "null");
  } catch {
    data = null;
  }
  const resourceType = resourceIdType(e, isObject(data) ? data : {});
  const resourceId = isUuidAnyCase(e.resourceId)
    ? encodeId(resourceType, e.resourceId)
    : e.resourceId;
  if (!isObject(data)) return { resourceId, variables: e.variables };
  const top = (id: string) => (id === e.resourceId ? resourceType : CREATED_TYPES[e.operationName]);
  return {
    resourceId,
    variables: JSON.stringify(publicObject(data, e.resourceType, top)),
  };
}

function resourceIdType(e: StoredEntry, data: Json): string {
  const type = idTypeOf(e.resourceType);
  // A restriction lifted before its event named the type: a project's, as most are.
  if (type === null) return namedType(data.resource_type) ?? "Project";
  // An aggregate this gateway does not know yet (a newer service's): its name, capitalized.
  return type ?? e.resourceType.charAt(0).toUpperCase() + e.resourceType.slice(1);
}

/** One of the event's objects with its ids public; `idType` says what its `id` names. */
function publicObject(
  o: Json,
  aggregate: string,
  idType: (id: string) => string | undefined,
): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(o)) {
    if (Object.hasOwn(NESTED, key)) {
      const itemType = NESTED[key];
      const item = (v: unknown) =>
        isObject(v) ? publicObject(v, aggregate, () => itemType ?? undefined) : v;
      out[key] = Array.isArray(value) ? value.map(item) : item(value);
      continue;
    }
    const type = typeAt(key, o, aggregate, idType);
    out[key] = type === undefined ? value : publicIds(value, type);
  }
  return out;
}

/** The id type of the value at `key` of `o`, an object of an event of `aggregate`'s stream. */
function typeAt(
  key: string,
  o: Json,
  aggregate: string,
  idType: (id: string) => string | undefined,
): string | undefined {
  if (key === "id") return typeof o.id === "string" ? idType(o.id) : undefined;
  if (Object.hasOwn(KEY_TYPES, key)) return KEY_TYPES[key];
  if (VERSION_KEYS.has(key)) return VERSION_TYPES[aggregate];
  if (RECORD_KEYS.has(key)) return RECORD_TYPES[aggregate];
  if (Object.hasOwn(SIBLING_TYPED, key)) return namedType(o[SIBLING_TYPED[key]!]);
  return undefined;
}

/** A uuid, or a list of them, as public ids of `type`; anything else as it is. */
function publicIds(value: unknown, type: string): unknown {
  if (typeof value === "string") return isUuidAnyCase(value) ? encodeId(type, value) : value;
  return Array.isArray(value) ? value.map((v) => publicIds(v, type)) : value;
}
