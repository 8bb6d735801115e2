/**
 * The dataset service's events (`<root>.dataset.<aggregate>.<Type>`). A dataset's stream holds
 * its life and its versions; its examples' stream holds the example writes, each event small
 * enough for one NATS message (a large write becomes several events of one transaction).
 */

// ── dataset ──────────────────────────────────────────────────────────────────────────────

export interface DatasetCreated {
  type: "DatasetCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    created_at: string;
  };
}

export interface DatasetRenamed {
  type: "DatasetRenamed";
  data: { id: string; space_id: string; name: string; updated_at: string };
}

/** Its versions, examples and tag attachments go with it. */
export interface DatasetDeleted {
  type: "DatasetDeleted";
  data: { id: string; account_id: string; space_id: string; deleted_at: string };
}

/**
 * A version: the first one comes with the dataset (no parent); a later one starts as its
 * parent's examples as they were, and reads through to them until it changes its own.
 */
export interface DatasetVersionCreated {
  type: "DatasetVersionCreated";
  data: {
    id: string;
    dataset_id: string;
    space_id: string;
    name: string;
    parent_version_id: string | null;
    created_at: string;
  };
}

export type DatasetEvent = DatasetCreated | DatasetRenamed | DatasetDeleted | DatasetVersionCreated;

// ── dataset_examples ─────────────────────────────────────────────────────────────────────

/** An example's user-defined fields (never id, created_at or updated_at). */
export type ExampleFields = Record<string, unknown>;

/** New examples in one version (in place: the version's children do not see them). */
export interface DatasetExamplesInserted {
  type: "DatasetExamplesInserted";
  data: {
    dataset_id: string;
    space_id: string;
    version_id: string;
    examples: { id: string; fields: ExampleFields }[];
    at: string;
  };
}

/**
 * Fields merged into existing examples of one version (new keys added, none removed); only
 * examples that existed there are listed.
 */
export interface DatasetExamplesUpdated {
  type: "DatasetExamplesUpdated";
  data: {
    dataset_id: string;
    space_id: string;
    version_id: string;
    examples: { id: string; fields: ExampleFields }[];
    at: string;
  };
}

/** Examples removed from one version; only examples that were there are listed. */
export interface DatasetExamplesDeleted {
  type: "DatasetExamplesDeleted";
  data: {
    dataset_id: string;
    space_id: string;
    version_id: string;
    example_ids: string[];
    at: string;
  };
}

/** An annotation as a record holds it: by config name; a field left out keeps its value. */
export interface AnnotationWrite {
  record_id: string;
  name: string;
  score?: number;
  label?: string;
  text?: string;
}

/** Annotations upserted on examples of the dataset (by example id, whatever the version). */
export interface DatasetExamplesAnnotated {
  type: "DatasetExamplesAnnotated";
  data: {
    dataset_id: string;
    space_id: string;
    annotator_id: string;
    /** The annotator's e-mail when it annotated ("" for a service account; absent in older events). */
    annotator_email?: string;
    annotations: AnnotationWrite[];
    at: string;
  };
}

/** A column of a bulk upload: its name and the kinds of JSON values it holds (bit per kind). */
export interface ImportedColumn {
  name: string;
  kinds: number;
}

/**
 * The examples of a bulk upload (an Arrow Flight createDataset), visible at once in one version.
 * Too many to travel in events, they were staged as they arrived under `import_id` (the
 * service's `import_chunks`, kept as long as this event is): the event makes them part of the
 * history, and replaying it reads them from there.
 */
export interface DatasetExamplesImported {
  type: "DatasetExamplesImported";
  data: {
    dataset_id: string;
    space_id: string;
    version_id: string;
    import_id: string;
    count: number;
    /** The examples' fields, in upload order, with the kinds of their values. */
    columns: ImportedColumn[];
    at: string;
  };
}

export type DatasetExamplesEvent =
  | DatasetExamplesImported
  | DatasetExamplesInserted
  | DatasetExamplesUpdated
  | DatasetExamplesDeleted
  | DatasetExamplesAnnotated;

// ── experiment ───────────────────────────────────────────────────────────────────────────

/** On a dataset (its version at the time) or, without one, in a space. */
export interface ExperimentCreated {
  type: "ExperimentCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    dataset_id: string | null;
    dataset_version_id: string | null;
    /** The AGENT integration whose calls made its outputs (a task's AGENT_CALL run). */
    integration_id?: string;
    created_at: string;
  };
}

/** Its runs go with it; so does every experiment of a deleted dataset. */
export interface ExperimentDeleted {
  type: "ExperimentDeleted";
  data: { id: string; account_id: string; space_id: string; deleted_at: string };
}

export type ExperimentEvent = ExperimentCreated | ExperimentDeleted;

// ── experiment_runs ──────────────────────────────────────────────────────────────────────

/** Runs appended to an experiment (several events when they do not fit one message). */
export interface ExperimentRunsInserted {
  type: "ExperimentRunsInserted";
  data: {
    experiment_id: string;
    space_id: string;
    runs: { id: string; example_id: string | null; output: string; fields: ExampleFields }[];
    at: string;
  };
}

/** Annotations upserted on runs of the experiment. */
export interface ExperimentRunsAnnotated {
  type: "ExperimentRunsAnnotated";
  data: {
    experiment_id: string;
    space_id: string;
    annotator_id: string;
    /** The annotator's e-mail when it annotated ("" for a service account; absent in older events). */
    annotator_email?: string;
    annotations: AnnotationWrite[];
    at: string;
  };
}

/**
 * Evaluations written on runs of the experiment by a task's run: each becomes the run's
 * `eval.<name>.label`, `.score` and `.explanation` fields (a value left out is removed).
 */
export interface ExperimentRunsEvaluated {
  type: "ExperimentRunsEvaluated";
  data: {
    experiment_id: string;
    space_id: string;
    task_id: string;
    evaluations: {
      run_id: string;
      name: string;
      label: string | null;
      score: number | null;
      explanation: string | null;
    }[];
    at: string;
  };
}

/** Runs of a bulk upload (an Arrow Flight postExperimentData), staged as examples' are. */
export interface ExperimentRunsImported {
  type: "ExperimentRunsImported";
  data: {
    experiment_id: string;
    space_id: string;
    import_id: string;
    count: number;
    /** The runs' other fields, in upload order, with the kinds of their values. */
    columns: ImportedColumn[];
    at: string;
  };
}

export type ExperimentRunsEvent =
  | ExperimentRunsImported
  | ExperimentRunsInserted
  | ExperimentRunsAnnotated
  | ExperimentRunsEvaluated;

export type DatasetServiceEvent =
  DatasetEvent | DatasetExamplesEvent | ExperimentEvent | ExperimentRunsEvent;
