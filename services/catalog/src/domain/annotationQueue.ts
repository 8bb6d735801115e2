import { DomainError } from "@argus/platform";
import { requireCatalogName, requireMaxLength } from "./catalogRules.ts";

export const RECORD_SOURCES_MAX = 2;
export const RECORDS_PER_REQUEST_MAX = 500;
export const ANNOTATIONS_PER_REQUEST_MAX = 500;
export const ASSIGNEES_MAX = 100;
export const INSTRUCTIONS_MAX = 10_000;
export const SPAN_RANGE_MAX_MS = 7 * 24 * 60 * 60 * 1000;

export type Annotator = { user_id: string; email: string };

/** A record as resolved from its source (ids and assignment chosen by the handler). */
export type QueueRecord = {
  id: string;
  source_type: "SPANS" | "DATASET";
  granularity: "SPAN" | "TRACE" | null;
  data: Record<string, unknown>;
  assignees: Annotator[];
};

/** A record source as the caller sent it, checked here before the handler resolves it. */
export type RecordSourceInput = {
  record_type: string;
  start_time: string;
  end_time: string;
  ids: string[];
};

export type AnnotationValue = {
  name: string;
  score: number | null;
  label: string | null;
  text: string | null;
};

export type AnnotationQueueEvent =
  | {
      type: "AnnotationQueueCreated";
      data: {
        id: string;
        account_id: string;
        space_id: string;
        name: string;
        instructions: string | null;
        annotation_config_ids: string[];
        annotators: Annotator[];
        assignment_method: string;
        created_at: string;
      };
    }
  | {
      type: "AnnotationQueueUpdated";
      data: {
        id: string;
        space_id: string;
        name: string;
        instructions: string | null;
        annotation_config_ids: string[];
        annotators: Annotator[];
        updated_at: string;
      };
    }
  | { type: "AnnotationQueueDeleted"; data: { id: string; space_id: string; deleted_at: string } }
  | {
      type: "AnnotationQueueRecordsAdded";
      data: { queue_id: string; space_id: string; records: QueueRecord[]; added_at: string };
    }
  | {
      type: "AnnotationQueueRecordsDeleted";
      data: { queue_id: string; space_id: string; record_ids: string[]; deleted_at: string };
    }
  | {
      type: "AnnotationQueueRecordAssigned";
      data: {
        queue_id: string;
        space_id: string;
        record_id: string;
        assignees: Annotator[];
        assigned_at: string;
      };
    }
  | {
      type: "AnnotationQueueRecordAnnotated";
      data: {
        queue_id: string;
        space_id: string;
        record_id: string;
        annotator: Annotator;
        annotations: AnnotationValue[];
        annotated_at: string;
      };
    };

export interface AnnotationQueueState {
  exists: boolean;
  deleted: boolean;
  id: string;
  spaceId: string;
  name: string;
  instructions: string | null;
  configIds: string[];
  annotators: Annotator[];
  recordIds: Set<string>;
}

export const initialAnnotationQueueState: AnnotationQueueState = {
  exists: false,
  deleted: false,
  id: "",
  spaceId: "",
  name: "",
  instructions: null,
  configIds: [],
  annotators: [],
  recordIds: new Set(),
};

export type AnnotationQueueCommand =
  | {
      type: "CreateAnnotationQueue";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      instructions: string | null;
      configIds: string[];
      annotators: Annotator[];
      assignmentMethod: string;
      sources: RecordSourceInput[];
      records: QueueRecord[];
      now: Date;
    }
  | {
      type: "UpdateAnnotationQueue";
      name?: string;
      instructions?: string | null;
      configIds?: string[];
      annotators?: Annotator[];
      now: Date;
    }
  | { type: "DeleteAnnotationQueue"; now: Date }
  | { type: "AddRecords"; sources: RecordSourceInput[]; records: QueueRecord[]; now: Date }
  | { type: "DeleteRecords"; recordIds: string[]; now: Date }
  | { type: "AssignRecord"; recordId: string; assignees: Annotator[]; now: Date }
  | {
      type: "AnnotateRecord";
      recordId: string;
      annotator: Annotator;
      annotations: AnnotationValue[];
      /** Names of the queue's annotation configs: the only names an annotation may use. */
      configNames: string[];
      now: Date;
    };

const unprocessable = (detail: string) => new DomainError("unprocessable-entity", detail);
const invalid = (detail: string) => new DomainError("invalid-request", detail);

/** The record-source rules of create_annotation_queue_record (ax-client), all but existence. */
export function checkSources(sources: RecordSourceInput[], records: QueueRecord[]): void {
  if (sources.length === 0) throw invalid("at least one record source is required");
  if (sources.length > RECORD_SOURCES_MAX)
    throw invalid(`at most ${RECORD_SOURCES_MAX} record sources per request`);
  for (const s of sources) {
    if (s.ids.some((id) => id.trim() === "")) throw invalid("record ids must not be empty");
    if (s.record_type === "SPAN" || s.record_type === "TRACE") {
      const start = Date.parse(s.start_time);
      const end = Date.parse(s.end_time);
      if (!(start < end)) throw invalid("start_time must be before end_time");
      if (end - start > SPAN_RANGE_MAX_MS) throw invalid("the time range must not exceed 7 days");
    }
  }
  if (records.length > RECORDS_PER_REQUEST_MAX)
    throw invalid(`at most ${RECORDS_PER_REQUEST_MAX} records per request`);
}

function requireLive(state: AnnotationQueueState): void {
  if (!state.exists || state.deleted)
    throw new DomainError("resource-not-found", "annotation queue not found");
}

function requireRecord(state: AnnotationQueueState, recordId: string): void {
  requireLive(state);
  if (!state.recordIds.has(recordId))
    throw new DomainError("resource-not-found", "annotation queue record not found");
}

function checkQueueFields(name: string, instructions: string | null, configIds: string[]): void {
  requireCatalogName(name);
  requireMaxLength("instructions", instructions, INSTRUCTIONS_MAX);
  if (configIds.length === 0) throw invalid("at least one annotation_config_id is required");
}

/** Pure: the events a command produces, or the rule it breaks. */
export function decideAnnotationQueue(
  command: AnnotationQueueCommand,
  state: AnnotationQueueState,
): AnnotationQueueEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateAnnotationQueue": {
      if (state.exists)
        throw new DomainError("resource-conflict", "annotation queue already exists");
      checkQueueFields(command.name, command.instructions, command.configIds);
      if (command.assignmentMethod !== "ALL" && command.assignmentMethod !== "RANDOM")
        throw invalid("assignment_method must be ALL or RANDOM");
      const created: AnnotationQueueEvent = {
        type: "AnnotationQueueCreated",
        data: {
          id: command.id,
          account_id: command.accountId,
          space_id: command.spaceId,
          name: command.name,
          instructions: command.instructions,
          annotation_config_ids: command.configIds,
          annotators: command.annotators,
          assignment_method: command.assignmentMethod,
          created_at: at,
        },
      };
      if (command.sources.length === 0) return [created];
      checkSources(command.sources, command.records);
      const added: AnnotationQueueEvent = {
        type: "AnnotationQueueRecordsAdded",
        data: {
          queue_id: command.id,
          space_id: command.spaceId,
          records: command.records,
          added_at: at,
        },
      };
      return command.records.length === 0 ? [created] : [created, added];
    }
    case "UpdateAnnotationQueue": {
      requireLive(state);
      const { name, instructions, configIds, annotators } = command;
      if ([name, instructions, configIds, annotators].every((v) => v === undefined))
        throw invalid(
          "at least one of name, instructions, annotation_config_ids or annotator_emails is required",
        );
      const next = {
        name: name ?? state.name,
        instructions: instructions === undefined ? state.instructions : instructions,
        configIds: configIds ?? state.configIds,
        annotators: annotators ?? state.annotators,
      };
      checkQueueFields(next.name, next.instructions, next.configIds);
      return [
        {
          type: "AnnotationQueueUpdated",
          data: {
            id: state.id,
            space_id: state.spaceId,
            name: next.name,
            instructions: next.instructions,
            annotation_config_ids: next.configIds,
            annotators: next.annotators,
            updated_at: at,
          },
        },
      ];
    }
    case "DeleteAnnotationQueue":
      requireLive(state);
      return [
        {
          type: "AnnotationQueueDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    case "AddRecords":
      requireLive(state);
      checkSources(command.sources, command.records);
      if (command.records.length === 0) return [];
      return [
        {
          type: "AnnotationQueueRecordsAdded",
          data: {
            queue_id: state.id,
            space_id: state.spaceId,
            records: command.records,
            added_at: at,
          },
        },
      ];
    case "DeleteRecords": {
      requireLive(state);
      // Unknown ids are ignored (ax-client delete_annotation_queue_record).
      const ids = [...new Set(command.recordIds)].filter((id) => state.recordIds.has(id));
      if (ids.length === 0) return [];
      return [
        {
          type: "AnnotationQueueRecordsDeleted",
          data: { queue_id: state.id, space_id: state.spaceId, record_ids: ids, deleted_at: at },
        },
      ];
    }
    case "AssignRecord":
      requireRecord(state, command.recordId);
      if (command.assignees.length > ASSIGNEES_MAX)
        throw invalid(`at most ${ASSIGNEES_MAX} assigned users per request`);
      return [
        {
          type: "AnnotationQueueRecordAssigned",
          data: {
            queue_id: state.id,
            space_id: state.spaceId,
            record_id: command.recordId,
            assignees: command.assignees,
            assigned_at: at,
          },
        },
      ];
    case "AnnotateRecord": {
      requireRecord(state, command.recordId);
      const n = command.annotations.length;
      if (n === 0 || n > ANNOTATIONS_PER_REQUEST_MAX)
        throw invalid(`annotations must hold 1 to ${ANNOTATIONS_PER_REQUEST_MAX} entries`);
      const names = new Set(command.configNames);
      const unknown = command.annotations.find((a) => !names.has(a.name));
      if (unknown)
        throw unprocessable(
          `annotation ${JSON.stringify(unknown.name)} matches no annotation config of this queue`,
        );
      return [
        {
          type: "AnnotationQueueRecordAnnotated",
          data: {
            queue_id: state.id,
            space_id: state.spaceId,
            record_id: command.recordId,
            annotator: command.annotator,
            annotations: command.annotations,
            annotated_at: at,
          },
        },
      ];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String((never as { type: string }).type)}`);
    }
  }
}

export function evolveAnnotationQueue(
  state: AnnotationQueueState,
  event: AnnotationQueueEvent,
): AnnotationQueueState {
  switch (event.type) {
    case "AnnotationQueueCreated":
    case "AnnotationQueueUpdated": {
      const d = event.data;
      return {
        ...state,
        exists: true,
        id: d.id,
        spaceId: d.space_id,
        name: d.name,
        instructions: d.instructions,
        configIds: d.annotation_config_ids,
        annotators: d.annotators,
      };
    }
    case "AnnotationQueueDeleted":
      return { ...state, deleted: true };
    case "AnnotationQueueRecordsAdded": {
      const recordIds = new Set(state.recordIds);
      for (const r of event.data.records) recordIds.add(r.id);
      return { ...state, recordIds };
    }
    case "AnnotationQueueRecordsDeleted": {
      const recordIds = new Set(state.recordIds);
      for (const id of event.data.record_ids) recordIds.delete(id);
      return { ...state, recordIds };
    }
    case "AnnotationQueueRecordAssigned":
    case "AnnotationQueueRecordAnnotated":
      return state;
    default: {
      const never: never = event;
      throw new Error(`unknown event ${String((never as { type: string }).type)}`);
    }
  }
}

export function annotationQueueStateOf(
  events: readonly AnnotationQueueEvent[],
): AnnotationQueueState {
  return events.reduce(evolveAnnotationQueue, initialAnnotationQueueState);
}
