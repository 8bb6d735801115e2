/**
 * The catalog's events as they are stored and published (`<root>.catalog.<aggregate>.<Type>`):
 * the types its deciders produce, its projections apply, and other services consume. Every
 * event of a space-owned resource carries `space_id`; AI integrations are account-level.
 */

// ── tag ──────────────────────────────────────────────────────────────────────────────────

export interface TagData {
  id: string;
  account_id: string;
  space_id: string;
  name: string;
  description: string | null;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface TagCreated {
  type: "TagCreated";
  data: TagData;
}

/** Carries only the fields that changed, plus updated_at; a null description/color clears it. */
export interface TagUpdated {
  type: "TagUpdated";
  data: {
    id: string;
    space_id: string;
    name?: string;
    description?: string | null;
    color?: string | null;
    updated_at: string;
  };
}

/** Detaches the tag everywhere. */
export interface TagDeleted {
  type: "TagDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export type TagEvent = TagCreated | TagUpdated | TagDeleted;

// ── resource_tags: the tags one resource carries (a set) ───────────────────────────────────

export interface TagsAttached {
  type: "TagsAttached";
  data: {
    resource_type: string;
    resource_id: string;
    space_id: string;
    /** Only the tags that were not attached before: re-attaching is not a change. */
    tag_ids: string[];
    attached_at: string;
  };
}

export interface TagsDetached {
  type: "TagsDetached";
  data: {
    resource_type: string;
    resource_id: string;
    space_id: string;
    /** Only the tags that were attached. */
    tag_ids: string[];
    detached_at: string;
  };
}

export type ResourceTagsEvent = TagsAttached | TagsDetached;

// ── project ──────────────────────────────────────────────────────────────────────────────

export interface ProjectCreated {
  type: "ProjectCreated";
  data: { id: string; account_id: string; space_id: string; name: string; created_at: string };
}

export interface ProjectUpdated {
  type: "ProjectUpdated";
  data: { id: string; space_id: string; name: string; updated_at: string };
}

export interface ProjectDeleted {
  type: "ProjectDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export type ProjectEvent = ProjectCreated | ProjectUpdated | ProjectDeleted;

// ── prompt (with its versions and labels) ───────────────────────────────────────────────

/** A version's content as the caller wrote it (messages and params parsed). */
export interface PromptVersionContent {
  commit_message: string;
  input_variable_format: string;
  provider: string;
  model: string;
  messages: unknown[];
  invocation_params: Record<string, unknown> | null;
  provider_params: Record<string, unknown> | null;
}

export interface PromptCreated {
  type: "PromptCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    description: string | null;
    created_by_user_id: string;
    created_at: string;
  };
}

/** Always follows PromptCreated (the first version) and marks every later commit. */
export interface PromptVersionCreated {
  type: "PromptVersionCreated";
  data: PromptVersionContent & {
    id: string;
    prompt_id: string;
    space_id: string;
    commit_hash: string;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface PromptUpdated {
  type: "PromptUpdated";
  data: { id: string; space_id: string; description: string | null; updated_at: string };
}

/** Deletes the prompt with its versions and labels. */
export interface PromptDeleted {
  type: "PromptDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export interface PromptLabelSet {
  type: "PromptLabelSet";
  data: {
    prompt_id: string;
    space_id: string;
    version_id: string;
    label: string;
    /** The version the label moved from; null when it is new on this prompt. */
    previous_version_id: string | null;
    set_at: string;
  };
}

/** The label no longer points at the version (removed, or left out of a set-labels request). */
export interface PromptLabelDeleted {
  type: "PromptLabelDeleted";
  data: {
    prompt_id: string;
    space_id: string;
    version_id: string;
    label: string;
    deleted_at: string;
  };
}

export type PromptEvent =
  | PromptCreated
  | PromptVersionCreated
  | PromptUpdated
  | PromptDeleted
  | PromptLabelSet
  | PromptLabelDeleted;

// ── evaluator (with its versions) ───────────────────────────────────────────────────────

export interface EvaluatorCreated {
  type: "EvaluatorCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    description: string | null;
    /** TEMPLATE or CODE. */
    evaluator_type: string;
    created_by_user_id: string;
    created_at: string;
  };
}

/** A version, the new latest: `config` is the template_config or code_config. */
export interface EvaluatorVersionCreated {
  type: "EvaluatorVersionCreated";
  data: {
    id: string;
    evaluator_id: string;
    space_id: string;
    evaluator_type: string;
    commit_hash: string;
    commit_message: string;
    config: Record<string, unknown>;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface EvaluatorUpdated {
  type: "EvaluatorUpdated";
  data: {
    id: string;
    space_id: string;
    name: string;
    description: string | null;
    updated_at: string;
  };
}

export interface EvaluatorDeleted {
  type: "EvaluatorDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

/** Versions removed from an evaluator; the latest remaining one becomes its default. */
export interface EvaluatorVersionsDeleted {
  type: "EvaluatorVersionsDeleted";
  data: { evaluator_id: string; space_id: string; version_ids: string[]; deleted_at: string };
}

export type EvaluatorEvent =
  | EvaluatorCreated
  | EvaluatorVersionCreated
  | EvaluatorUpdated
  | EvaluatorDeleted
  | EvaluatorVersionsDeleted;

// ── annotation_config ───────────────────────────────────────────────────────────────────

export interface CategoricalValue {
  label: string;
  score: number | null;
}

/** The type-specific part; fields of other types are null / empty. */
export interface AnnotationConfigShape {
  minimum_score: number | null;
  maximum_score: number | null;
  values: CategoricalValue[];
  optimization_direction: string | null;
}

export interface AnnotationConfigCreated {
  type: "AnnotationConfigCreated";
  data: AnnotationConfigShape & {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    /** CONTINUOUS, CATEGORICAL or FREEFORM. */
    config_type: string;
    created_at: string;
  };
}

export interface AnnotationConfigUpdated {
  type: "AnnotationConfigUpdated";
  data: AnnotationConfigShape & { id: string; space_id: string; name: string; updated_at: string };
}

export interface AnnotationConfigDeleted {
  type: "AnnotationConfigDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export type AnnotationConfigEvent =
  AnnotationConfigCreated | AnnotationConfigUpdated | AnnotationConfigDeleted;

// ── annotation_queue (with its records, assignments and annotations) ────────────────────

export interface Annotator {
  user_id: string;
  email: string;
}

/** A record as added to a queue: what it points at and whom it is assigned to. */
export interface QueueRecordData {
  id: string;
  source_type: "SPANS" | "DATASET";
  granularity: "SPAN" | "TRACE" | "SESSION" | null;
  data: Record<string, unknown>;
  assignees: Annotator[];
}

export interface AnnotationValue {
  name: string;
  score: number | null;
  label: string | null;
  text: string | null;
}

export interface AnnotationQueueCreated {
  type: "AnnotationQueueCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    instructions: string | null;
    annotation_config_ids: string[];
    annotators: Annotator[];
    /** ALL or RANDOM. */
    assignment_method: string;
    /** Record columns annotators may see; null or absent (older events): unrestricted. */
    column_allowlist?: string[] | null;
    created_at: string;
  };
}

export interface AnnotationQueueUpdated {
  type: "AnnotationQueueUpdated";
  data: {
    id: string;
    space_id: string;
    name: string;
    instructions: string | null;
    annotation_config_ids: string[];
    annotators: Annotator[];
    /** The allowlist after the update; absent in older events (unchanged). */
    column_allowlist?: string[] | null;
    updated_at: string;
  };
}

export interface AnnotationQueueDeleted {
  type: "AnnotationQueueDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

/** At most 500 records per event. */
export interface AnnotationQueueRecordsAdded {
  type: "AnnotationQueueRecordsAdded";
  data: { queue_id: string; space_id: string; records: QueueRecordData[]; added_at: string };
}

export interface AnnotationQueueRecordsDeleted {
  type: "AnnotationQueueRecordsDeleted";
  data: { queue_id: string; space_id: string; record_ids: string[]; deleted_at: string };
}

/** The record's assigned users, replaced. */
export interface AnnotationQueueRecordAssigned {
  type: "AnnotationQueueRecordAssigned";
  data: {
    queue_id: string;
    space_id: string;
    record_id: string;
    assignees: Annotator[];
    assigned_at: string;
  };
}

/** Annotations upserted by annotation config name. */
export interface AnnotationQueueRecordAnnotated {
  type: "AnnotationQueueRecordAnnotated";
  data: {
    queue_id: string;
    space_id: string;
    record_id: string;
    annotator: Annotator;
    annotations: AnnotationValue[];
    annotated_at: string;
  };
}

export type AnnotationQueueEvent =
  | AnnotationQueueCreated
  | AnnotationQueueUpdated
  | AnnotationQueueDeleted
  | AnnotationQueueRecordsAdded
  | AnnotationQueueRecordsDeleted
  | AnnotationQueueRecordAssigned
  | AnnotationQueueRecordAnnotated;

// ── ai_integration (account-level: no space_id) ─────────────────────────────────────────

/** Null ids widen the scope; an integration without scopings is account-wide. */
export interface AiIntegrationScoping {
  organization_id: string | null;
  space_id: string | null;
}

export interface AiIntegrationConfig {
  name: string;
  provider: string;
  base_url: string | null;
  model_names: string[];
  headers: Record<string, string> | null;
  enable_default_models: boolean;
  function_calling_enabled: boolean;
  auth_type: string;
  provider_metadata: Record<string, unknown> | null;
  scopings: AiIntegrationScoping[];
}

/** What events say about the key: whether one is set and its redacted hint, never the key. */
export interface AiIntegrationKeyFacts {
  has_api_key: boolean;
  api_key_hint: string;
}

export interface AiIntegrationCreated {
  type: "AiIntegrationCreated";
  data: AiIntegrationConfig &
    AiIntegrationKeyFacts & {
      id: string;
      account_id: string;
      created_by_user_id: string;
      created_at: string;
    };
}

export interface AiIntegrationUpdated {
  type: "AiIntegrationUpdated";
  data: AiIntegrationConfig & AiIntegrationKeyFacts & { id: string; updated_at: string };
}

export interface AiIntegrationDeleted {
  type: "AiIntegrationDeleted";
  data: { id: string; deleted_at: string };
}

export type AiIntegrationEvent = AiIntegrationCreated | AiIntegrationUpdated | AiIntegrationDeleted;

// ── integration (AGENT and EVALUATOR: remote endpoints; account-level) ──────────────────

/** A named request body of an AGENT integration (the public API's request preset). */
export interface IntegrationPreset {
  id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** What a remote endpoint integration is, header values aside (never in an event). */
export interface IntegrationSettings {
  type: "AGENT" | "EVALUATOR";
  name: string;
  description: string | null;
  endpoint: string;
  input_schema: Record<string, unknown>;
  /** Names of the configured headers; their values live beside the events. */
  header_names: string[];
  /** AGENT only (always [] for EVALUATOR). */
  request_presets: IntegrationPreset[];
  scopings: AiIntegrationScoping[];
}

export interface IntegrationCreated {
  type: "IntegrationCreated";
  data: IntegrationSettings & {
    id: string;
    account_id: string;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface IntegrationUpdated {
  type: "IntegrationUpdated";
  data: IntegrationSettings & { id: string; updated_at: string };
}

export interface IntegrationDeleted {
  type: "IntegrationDeleted";
  data: { id: string; deleted_at: string };
}

export type IntegrationEvent = IntegrationCreated | IntegrationUpdated | IntegrationDeleted;

/** Every event the catalog publishes. */
export type CatalogEvent =
  | TagEvent
  | ResourceTagsEvent
  | ProjectEvent
  | PromptEvent
  | EvaluatorEvent
  | AnnotationConfigEvent
  | AnnotationQueueEvent
  | AiIntegrationEvent
  | IntegrationEvent;
