import type {
  AnnotationQueueEvent,
  AnnotationValue,
  Annotator,
  QueueRecordData,
} from "@argus/contracts";
import { DomainError, unreachable } from "@argus/platform";
import { invalid, unprocessable } from "../shared/catalogRules.ts";

const RECORD_SOURCES_MAX = 2;
const RECORDS_PER_REQUEST_MAX = 500;
const ANNOTATIONS_PER_REQUEST_MAX = 500;
const ASSIGNEES_MAX = 100;
const SPAN_RANGE_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** The public API: at most 100 session ids per request, across its sources. */
const SESSION_IDS_MAX = 100;

/** A record source as the caller sent it, checked here before the handler resolves it. */
export interface RecordSourceInput {
  record_type: string;
  start_time: string;
  end_time: string;
  ids: string[];
}

/** A record resolved from its source; `draw` (random) picks its annotator under RANDOM. */
export type RecordDraft = Omit<QueueRecordData, "assignees"> & { draw: number };

/** The record-source rules of create_annotation_queue_record (ax-client), all but existence. */
export function checkSources(sources: RecordSourceInput[], records: readonly unknown[]): void {
  if (sources.length === 0) throw invalid("at least one record source is required");
  if (sources.length > RECORD_SOURCES_MAX)
    throw invalid(`at most ${RECORD_SOURCES_MAX} record sources per request`);
  for (const s of sources) {
    if (s.ids.some((id) => id.trim() === "")) throw invalid("record ids must not be empty");
    if (s.record_type === "SPAN" || s.record_type === "TRACE" || s.record_type === "SESSION") {
      const start = Date.parse(s.start_time);
      const end = Date.parse(s.end_time);
      if (!(start < end)) throw invalid("start_time must be before end_time");
      if (end - start > SPAN_RANGE_MAX_MS) throw invalid("the time range must not exceed 7 days");
    }
  }
  const sessions = sources.filter((s) => s.record_type === "SESSION");
  if (sessions.some((s) => s.ids.length === 0)) throw invalid("session_ids must not be empty");
  if (sessions.reduce((n, s) => n + s.ids.length, 0) > SESSION_IDS_MAX)
    throw invalid(`at most ${SESSION_IDS_MAX} session ids per request`);
  if (records.length > RECORDS_PER_REQUEST_MAX)
    throw invalid(`at most ${RECORDS_PER_REQUEST_MAX} records per request`);
}

/** What names a record's source: its type, granularity and data (key order aside). */
export function recordKey(r: {
  source_type: string;
  granularity: string | null;
  data: Record<string, unknown>;
}): string {
  const data = Object.keys(r.data)
    .sort()
    .map((k) => [k, r.data[k]]);
  return JSON.stringify([r.source_type, r.granularity ?? null, data]);
}

/**
 * The records of a request the queue does not hold yet (the public API: a source already in
 * the queue adds nothing, and a request of only such sources answers 200 with none), each once.
 */
export function newRecords(
  drafts: readonly RecordDraft[],
  held: ReadonlySet<string>,
): RecordDraft[] {
  const seen = new Set(held);
  return drafts.filter((d) => {
    const key = recordKey(d);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Who a new record is assigned to: every annotator (ALL) or one drawn at random (RANDOM). */
export function recordsFor(
  drafts: readonly RecordDraft[],
  annotators: Annotator[],
  method: string,
): QueueRecordData[] {
  return drafts.map(({ draw, ...record }) => ({
    ...record,
    assignees:
      method !== "RANDOM" || annotators.length <= 1
        ? annotators
        : [annotators[draw % annotators.length]!],
  }));
}

function requireRecord(exists: boolean): void {
  if (!exists) throw new DomainError("resource-not-found", "annotation queue record not found");
}

function requireAnnotations(annotations: AnnotationValue[], configNames: string[]): void {
  const n = annotations.length;
  if (n === 0 || n > ANNOTATIONS_PER_REQUEST_MAX)
    throw invalid(`annotations must hold 1 to ${ANNOTATIONS_PER_REQUEST_MAX} entries`);
  const seen = new Set<string>();
  const repeated = annotations.find((a) => seen.size === seen.add(a.name).size);
  if (repeated) throw invalid(`annotation ${JSON.stringify(repeated.name)} appears more than once`);
  const names = new Set(configNames);
  const unknown = annotations.find((a) => !names.has(a.name));
  if (unknown)
    throw unprocessable(
      `annotation ${JSON.stringify(unknown.name)} matches no annotation config of this queue`,
    );
}

function requireAssignees(assignees: Annotator[]): void {
  if (assignees.length > ASSIGNEES_MAX)
    throw invalid(`at most ${ASSIGNEES_MAX} assigned users per request`);
}

/** Commands on a queue's records; record facts are read in the command's transaction. */
export type RecordCommand =
  /** `held`: the recordKey of each of `records` the queue holds already. */
  | {
      type: "AddRecords";
      sources: RecordSourceInput[];
      records: RecordDraft[];
      held?: ReadonlySet<string>;
      now: Date;
    }
  /** `existing`: the named records that are in the queue. */
  | { type: "DeleteRecords"; recordIds: string[]; existing: string[]; now: Date }
  | { type: "AssignRecord"; recordId: string; exists: boolean; assignees: Annotator[]; now: Date }
  | {
      type: "AnnotateRecord";
      recordId: string;
      exists: boolean;
      annotator: Annotator;
      annotations: AnnotationValue[];
      /** Names of the queue's annotation configs: the only names an annotation may use. */
      configNames: string[];
      now: Date;
    };

/** What the record commands read of a live queue (the decider's state has all of it). */
export interface QueueOfRecords {
  id: string;
  spaceId: string;
  annotators: Annotator[];
  assignmentMethod: string;
}

/** The record commands of a live queue (its decider checked that it is live). */
export function decideRecords(
  command: RecordCommand,
  state: QueueOfRecords,
  at: string,
): AnnotationQueueEvent[] {
  const on = { queue_id: state.id, space_id: state.spaceId };
  switch (command.type) {
    case "AddRecords": {
      // The limits are the request's, held records or not.
      checkSources(command.sources, command.records);
      const fresh = newRecords(command.records, command.held ?? new Set());
      if (fresh.length === 0) return [];
      const records = recordsFor(fresh, state.annotators, state.assignmentMethod);
      return [{ type: "AnnotationQueueRecordsAdded", data: { ...on, records, added_at: at } }];
    }
    case "DeleteRecords": {
      // Unknown ids are ignored (ax-client delete_annotation_queue_record).
      const existing = new Set(command.existing);
      const ids = [...new Set(command.recordIds)].filter((id) => existing.has(id));
      if (ids.length === 0) return [];
      const data = { ...on, record_ids: ids, deleted_at: at };
      return [{ type: "AnnotationQueueRecordsDeleted", data }];
    }
    case "AssignRecord": {
      requireRecord(command.exists);
      requireAssignees(command.assignees);
      const { recordId: record_id, assignees } = command;
      const data = { ...on, record_id, assignees, assigned_at: at };
      return [{ type: "AnnotationQueueRecordAssigned", data }];
    }
    case "AnnotateRecord": {
      requireRecord(command.exists);
      requireAnnotations(command.annotations, command.configNames);
      const { recordId: record_id, annotator, annotations } = command;
      const data = { ...on, record_id, annotator, annotations, annotated_at: at };
      return [{ type: "AnnotationQueueRecordAnnotated", data }];
    }
    default:
      return unreachable(command);
  }
}
