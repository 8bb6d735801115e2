import { requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import type { Decider } from "@argus/eventstore";
import type { AnnotationQueueEvent, Annotator } from "@argus/contracts";
import {
  checkSources,
  decideRecords,
  recordsFor,
  type RecordCommand,
  type RecordDraft,
  type RecordSourceInput,
} from "./annotationQueueRecordRules.ts";
import {
  invalid,
  requireCatalogName,
  requireMaxLength,
  unprocessable,
} from "../shared/catalogRules.ts";

const INSTRUCTIONS_MAX = 5000;
/** The public API's bounds on column_allowlist: 1000 names of at most 512 characters. */
const COLUMN_ALLOWLIST_MAX = 1000;
const COLUMN_NAME_MAX = 512;

/** The queue itself; its records are facts of the projection, read by the commands needing them. */
export type AnnotationQueueState = Lifecycle<{
  id: string;
  spaceId: string;
  name: string;
  instructions: string | null;
  configIds: string[];
  annotators: Annotator[];
  assignmentMethod: string;
  columnAllowlist: string[] | null;
}>;

/** `configsInSpace`: which of the named configs exist in the queue's space, read in the transaction. */
type Configs = { configIds: string[]; configsInSpace: string[] };

export type AnnotationQueueCommand =
  | (Configs & {
      type: "CreateAnnotationQueue";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      instructions: string | null;
      annotators: Annotator[];
      assignmentMethod: string;
      /** Absent or null: unrestricted. */
      columnAllowlist?: string[] | null;
      sources: RecordSourceInput[];
      records: RecordDraft[];
      now: Date;
    })
  | (Partial<Configs> & {
      type: "UpdateAnnotationQueue";
      name?: string;
      instructions?: string | null;
      annotators?: Annotator[];
      /** undefined: unchanged; null: unrestricted. */
      columnAllowlist?: string[] | null;
      now: Date;
    })
  | { type: "DeleteAnnotationQueue"; now: Date }
  | RecordCommand;

function checkAllowlist(columns: string[] | null): void {
  if (columns === null) return;
  if (columns.length > COLUMN_ALLOWLIST_MAX)
    throw invalid(`column_allowlist holds at most ${COLUMN_ALLOWLIST_MAX} names`);
  for (const c of columns) requireMaxLength("a column_allowlist name", c, COLUMN_NAME_MAX);
}

function checkQueueFields(name: string, instructions: string | null, c: Configs): void {
  requireCatalogName(name);
  requireMaxLength("instructions", instructions, INSTRUCTIONS_MAX);
  if (c.configIds.length === 0) throw invalid("at least one annotation_config_id is required");
  if (new Set(c.configIds).size !== new Set(c.configsInSpace).size)
    throw unprocessable("every annotation config must exist in the queue's space");
}

function decide(
  command: AnnotationQueueCommand,
  state: AnnotationQueueState,
): AnnotationQueueEvent[] {
  const at = command.now.toISOString();
  if (command.type === "CreateAnnotationQueue") {
    requireNew(state, "annotation queue");
    checkQueueFields(command.name, command.instructions, command);
    const allowlist = command.columnAllowlist ?? null;
    checkAllowlist(allowlist);
    const { id, spaceId, annotators, assignmentMethod } = command;
    if (assignmentMethod !== "ALL" && assignmentMethod !== "RANDOM")
      throw invalid("assignment_method must be ALL or RANDOM");
    const created: AnnotationQueueEvent = {
      type: "AnnotationQueueCreated",
      data: {
        id,
        account_id: command.accountId,
        space_id: spaceId,
        name: command.name,
        instructions: command.instructions,
        annotation_config_ids: command.configIds,
        annotators,
        assignment_method: assignmentMethod,
        ...(allowlist === null ? {} : { column_allowlist: allowlist }),
        created_at: at,
      },
    };
    if (command.sources.length === 0) return [created];
    checkSources(command.sources, command.records);
    if (command.records.length === 0) return [created];
    const records = recordsFor(command.records, annotators, assignmentMethod);
    const added = { queue_id: id, space_id: spaceId, records, added_at: at };
    return [created, { type: "AnnotationQueueRecordsAdded", data: added }];
  }
  requireLive(state, "annotation queue");
  switch (command.type) {
    case "UpdateAnnotationQueue": {
      const { name, instructions, configIds, annotators, columnAllowlist } = command;
      if (
        [name, instructions, configIds, annotators, columnAllowlist].every((v) => v === undefined)
      )
        throw invalid(
          "at least one of name, instructions, annotation_config_ids, annotator_emails or column_allowlist is required",
        );
      if (columnAllowlist !== undefined) checkAllowlist(columnAllowlist);
      const next = {
        name: name ?? state.name,
        instructions: instructions === undefined ? state.instructions : instructions,
        annotation_config_ids: configIds ?? state.configIds,
        annotators: annotators ?? state.annotators,
        // Only when it changes: absent in the event means unchanged.
        ...(columnAllowlist === undefined ? {} : { column_allowlist: columnAllowlist }),
      };
      checkQueueFields(next.name, next.instructions, {
        configIds: next.annotation_config_ids,
        configsInSpace: command.configsInSpace ?? state.configIds,
      });
      const data = { id: state.id, space_id: state.spaceId, ...next, updated_at: at };
      return [{ type: "AnnotationQueueUpdated", data }];
    }
    case "DeleteAnnotationQueue":
      return [
        {
          type: "AnnotationQueueDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    case "AddRecords":
    case "DeleteRecords":
    case "AssignRecord":
    case "AnnotateRecord":
      return decideRecords(command, state, at);
    default:
      return unreachable(command);
  }
}

function evolve(state: AnnotationQueueState, event: AnnotationQueueEvent): AnnotationQueueState {
  switch (event.type) {
    case "AnnotationQueueCreated": {
      const d = event.data;
      return {
        status: "live",
        id: d.id,
        spaceId: d.space_id,
        name: d.name,
        instructions: d.instructions,
        configIds: d.annotation_config_ids,
        annotators: d.annotators,
        assignmentMethod: d.assignment_method,
        columnAllowlist: d.column_allowlist ?? null,
      };
    }
    case "AnnotationQueueUpdated": {
      if (state.status !== "live") return state;
      const { name, instructions, annotation_config_ids: configIds, annotators } = event.data;
      const columnAllowlist =
        event.data.column_allowlist === undefined
          ? state.columnAllowlist
          : event.data.column_allowlist;
      return { ...state, name, instructions, configIds, annotators, columnAllowlist };
    }
    case "AnnotationQueueDeleted":
      return { status: "deleted" };
    case "AnnotationQueueRecordsAdded":
    case "AnnotationQueueRecordsDeleted":
    case "AnnotationQueueRecordAssigned":
    case "AnnotationQueueRecordAnnotated":
      return state;
    default:
      return unreachable(event);
  }
}

/** An annotation queue with its records, assignments and annotations: one stream. */
export const annotationQueueDecider: Decider<
  AnnotationQueueState,
  AnnotationQueueCommand,
  AnnotationQueueEvent
> = {
  initialState: { status: "none" },
  evolve,
  decide,
  // Its records are events of the stream (the state keeps none of them).
  snapshots: { tag: "annotation-queue/1", every: 50 },
};
