/**
 * Stream prefixes, one spelling each (snake_case): a stream id is `<aggregate>-<uuid>`, and the
 * aggregate becomes the third token of the event's subject, `<root>.<service>.<aggregate>.<Type>`.
 */
export const IDENTITY_AGGREGATES = [
  "account",
  "organization",
  "space",
  "user",
  "role",
  "role_binding",
  "restriction",
  "service_account",
  "api_key",
] as const;

export const CATALOG_AGGREGATES = [
  "tag",
  "resource_tags",
  "project",
  "prompt",
  "evaluator",
  "annotation_config",
  "annotation_queue",
  "ai_integration",
  "integration",
] as const;

/**
 * A dataset's own stream carries its life and versions (small, folded by its decider); its
 * examples go on `dataset_examples-<dataset id>`, never folded: example writes decide on the
 * dataset's tables, serialized by a lock on the dataset's row. Experiments and their runs
 * likewise.
 */
export const DATASET_AGGREGATES = [
  "dataset",
  "dataset_examples",
  "experiment",
  "experiment_runs",
] as const;

/**
 * A project's spans: one stream per project, a set (its events commute), never folded. A
 * monitor's stream carries its settings and status changes (its evaluations are rows); a
 * dashboard's carries its widgets.
 */
export const TRACING_AGGREGATES = ["project_spans", "monitor", "dashboard"] as const;

/** Webhooks and their subscriptions; deliveries are rows of the dispatcher, not events. */
export const WEBHOOK_AGGREGATES = ["webhook", "webhook_subscription"] as const;

/** Tasks, and runs: one stream per run (its life is short and its own). */
export const TASK_AGGREGATES = ["task", "task_run"] as const;

export const AGGREGATES = {
  identity: IDENTITY_AGGREGATES,
  catalog: CATALOG_AGGREGATES,
  dataset: DATASET_AGGREGATES,
  tracing: TRACING_AGGREGATES,
  "webhook-dispatcher": WEBHOOK_AGGREGATES,
  "task-runner": TASK_AGGREGATES,
} as const;

export type Service = keyof typeof AGGREGATES;
export type Aggregate<S extends Service = Service> = (typeof AGGREGATES)[S][number];

export const streamId = (aggregate: Aggregate, id: string): string => `${aggregate}-${id}`;

/** The subject a service's event is published on (the relay's rule, spelled once). */
export const subjectOf = (
  root: string,
  service: Service,
  aggregate: Aggregate,
  type: string,
): string => `${root}.${service}.${aggregate}.${type}`;

/** Every event type of one aggregate, for a durable consumer's filter (`…<aggregate>.>`). */
export const aggregateSubjects = (root: string, service: Service, aggregate: Aggregate): string =>
  `${root}.${service}.${aggregate}.>`;
