import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import {
  AnnotationQueueServiceService,
  type AnnotationQueue,
  type AnnotationQueueRecord,
  type Annotator,
  type RecordSource,
} from "@argus/proto/catalog/v1/annotations";
import type { Backend } from "../backend.ts";
import { type PathParam, spaceListQuery, utcText } from "./params.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { toPublicAnnotationConfig } from "./annotationConfigs.ts";
import { listPage } from "./listPage.ts";

const user = (a: Annotator) => ({ id: encodeId("User", a.userId), email: a.email });

function toPublicQueue(q: AnnotationQueue) {
  return {
    id: encodeId("AnnotationQueue", q.id),
    name: q.name,
    space_id: encodeId("Space", q.spaceId),
    instructions: q.instructions ?? null,
    annotation_configs: q.annotationConfigs.map(toPublicAnnotationConfig),
    annotators: q.annotators.map(user),
    column_allowlist:
      q.columnAllowlistJson === undefined ? null : (JSON.parse(q.columnAllowlistJson) as string[]),
    created_at: q.createdAt,
    updated_at: q.updatedAt,
  };
}

/** Record data holds internal ids of its project or dataset; the public form encodes them. */
function publicData(json: string): Record<string, unknown> {
  const d = JSON.parse(json) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...d };
  if (typeof d.project_id === "string") out.project_id = encodeId("Project", d.project_id);
  if (typeof d.dataset_id === "string") out.dataset_id = encodeId("Dataset", d.dataset_id);
  if (typeof d.dataset_version_id === "string")
    out.dataset_version_id = encodeId("DatasetVersion", d.dataset_version_id);
  return out;
}

function recordIdentity(r: AnnotationQueueRecord) {
  return {
    id: encodeId("AnnotationQueueRecord", r.id),
    annotation_queue_id: encodeId("AnnotationQueue", r.annotationQueueId),
    source_type: r.sourceType,
    granularity: r.granularity || null,
  };
}

const annotationsOf = (r: AnnotationQueueRecord) =>
  r.annotations.map((a) => ({
    name: a.name,
    ...(a.score === undefined ? {} : { score: a.score }),
    ...(a.label === undefined ? {} : { label: a.label }),
    ...(a.text === undefined ? {} : { text: a.text }),
    updated_at: a.updatedAt,
    ...(a.annotator?.email ? { annotator: user(a.annotator) } : {}),
  }));

const assignedOf = (r: AnnotationQueueRecord) =>
  r.assignedUsers.map((u) => ({ user: user(u.user!), completion_status: u.completionStatus }));

function toPublicRecord(r: AnnotationQueueRecord) {
  return {
    ...recordIdentity(r),
    data: publicData(r.dataJson),
    annotations: annotationsOf(r),
    trace_annotations: [],
    session_annotations: [],
    evaluations: [],
    assigned_users: assignedOf(r),
  };
}

function decodeOr404(type: string, id: string | undefined, label: string): string {
  const uuid = decodeId(type, id ?? "");
  if (uuid === null) throw notFound(label);
  return uuid;
}

/** Ids inside a body are 422 when they name nothing (as for tag attach). */
function bodyId(type: string, id: string | undefined, field: string): string {
  const uuid = decodeId(type, id ?? "");
  if (uuid === null) throw new DomainError("unprocessable-entity", `${field} is not a ${type} id`);
  return uuid;
}

function sourceOf(s: components["schemas"]["AnnotationQueueRecordInput"]): RecordSource {
  if (s.record_type === "EXAMPLE")
    return {
      recordType: "EXAMPLE",
      datasetId: bodyId("Dataset", s.dataset_id, "dataset_id"),
      datasetVersionId: s.dataset_version_id
        ? bodyId("DatasetVersion", s.dataset_version_id, "dataset_version_id")
        : "",
      projectId: "",
      startTime: "",
      endTime: "",
      ids: s.example_ids ?? [],
    };
  return {
    recordType: s.record_type,
    datasetId: "",
    datasetVersionId: "",
    projectId: bodyId("Project", s.project_id, "project_id"),
    startTime: utcText(s.start_time, "start_time"),
    endTime: utcText(s.end_time, "end_time"),
    ids:
      (s.record_type === "SPAN"
        ? s.span_ids
        : s.record_type === "SESSION"
          ? s.session_ids
          : s.trace_ids) ?? [],
  };
}

const queueId = (req: PathParam<"annotation_queue_id">) =>
  decodeOr404("AnnotationQueue", req.params.annotation_queue_id, "annotation queue");
const recordId = (req: PathParam<"annotation_queue_record_id">) =>
  decodeOr404("AnnotationQueueRecord", req.params.annotation_queue_record_id, "record");
const configIds = (ids: string[]) =>
  ids.map((id) => bodyId("AnnotationConfig", id, "annotation_config_ids"));

export function annotationQueueHandlers(catalog: Backend): ResourceHandlers<"annotation-queues"> {
  const S = AnnotationQueueServiceService;
  return {
    async list_annotation_queues(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("annotation_queues", []);
      const res = await catalog.call(S.listAnnotationQueues, query, req);
      return listPage("annotation_queues", res.annotationQueues.map(toPublicQueue), res.page);
    },

    async create_annotation_queue(req) {
      const b = req.body;
      const spaceId = decodeOr404("Space", b.space_id, "space");
      const res = await catalog.call(
        S.createAnnotationQueue,
        {
          spaceId,
          name: b.name,
          ...(b.instructions === undefined ? {} : { instructions: b.instructions }),
          annotationConfigIds: configIds(b.annotation_config_ids),
          annotatorEmails: b.annotator_emails,
          assignmentMethod: b.assignment_method ?? "ALL",
          recordSources: (b.record_sources ?? []).map(sourceOf),
          ...(b.column_allowlist === undefined
            ? {}
            : { columnAllowlistJson: JSON.stringify(b.column_allowlist) }),
        },
        req,
      );
      return { status: 201, body: toPublicQueue(res) };
    },

    async get_annotation_queue(req) {
      const res = await catalog.call(S.getAnnotationQueue, { id: queueId(req) }, req);
      return { status: 200, body: toPublicQueue(res) };
    },

    async update_annotation_queue(req) {
      const b = req.body;
      const res = await catalog.call(
        S.updateAnnotationQueue,
        {
          id: queueId(req),
          ...(b.name === undefined ? {} : { name: b.name }),
          setInstructions: Object.hasOwn(b, "instructions"),
          ...(typeof b.instructions === "string" ? { instructions: b.instructions } : {}),
          setAnnotationConfigIds: b.annotation_config_ids !== undefined,
          annotationConfigIds: configIds(b.annotation_config_ids ?? []),
          setAnnotatorEmails: b.annotator_emails !== undefined,
          annotatorEmails: b.annotator_emails ?? [],
          ...(b.column_allowlist === undefined
            ? {}
            : { columnAllowlistJson: JSON.stringify(b.column_allowlist) }),
        },
        req,
      );
      return { status: 200, body: toPublicQueue(res) };
    },

    delete_annotation_queue: (req) =>
      noContent(catalog.call(S.deleteAnnotationQueue, { id: queueId(req) }, req)),

    async list_annotation_queue_records(req) {
      const res = await catalog.call(
        S.listAnnotationQueueRecords,
        { page: req.page, annotationQueueId: queueId(req) },
        req,
      );
      return listPage("records", res.records.map(toPublicRecord), res.page);
    },

    async create_annotation_queue_record(req) {
      const b = req.body;
      const res = await catalog.call(
        S.addAnnotationQueueRecords,
        { annotationQueueId: queueId(req), recordSources: b.record_sources.map(sourceOf) },
        req,
      );
      // The public API: 201 when a record was added; 200 with none when every source was
      // in the queue already.
      return {
        status: res.records.length > 0 ? 201 : 200,
        body: { record_sources: res.records.map(toPublicRecord) },
      };
    },

    async delete_annotation_queue_record(req) {
      const b = req.body;
      // An id that is not a record id cannot be in the queue: ignored like any unknown id.
      const recordIds = b.record_ids
        .map((id) => decodeId("AnnotationQueueRecord", id))
        .filter((id): id is string => id !== null);
      return noContent(
        catalog.call(
          S.deleteAnnotationQueueRecords,
          { annotationQueueId: queueId(req), recordIds },
          req,
        ),
      );
    },

    async annotate_annotation_queue_record(req) {
      const b = req.body;
      const res = await catalog.call(
        S.annotateAnnotationQueueRecord,
        { annotationQueueId: queueId(req), recordId: recordId(req), annotations: b.annotations },
        req,
      );
      const submitted = new Set(b.annotations.map((a) => a.name));
      return {
        status: 200,
        body: {
          ...recordIdentity(res),
          annotations: annotationsOf(res).filter((a) => submitted.has(a.name)),
        },
      };
    },

    async assign_annotation_queue_record(req) {
      const b = req.body;
      const res = await catalog.call(
        S.assignAnnotationQueueRecord,
        {
          annotationQueueId: queueId(req),
          recordId: recordId(req),
          assignedUserEmails: b.assigned_user_emails,
        },
        req,
      );
      return { status: 200, body: { ...recordIdentity(res), assigned_users: assignedOf(res) } };
    },
  };
}
