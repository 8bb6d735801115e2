import { randomInt } from "node:crypto";
import { DomainError, uuidv7, type CallContext } from "@argus/platform";
import type { RecordSource } from "@argus/proto/catalog/v1/annotations";
import type { Pool } from "pg";
import type { DatasetPort } from "./datasetPort.ts";
import {
  checkSources,
  type Annotator,
  type QueueRecord,
  type RecordSourceInput,
} from "./domain/annotationQueue.ts";
import { findResource } from "./resources.ts";

export interface RecordPorts {
  pool: Pool;
  datasets: DatasetPort;
}

const unprocessable = (detail: string) => new DomainError("unprocessable-entity", detail);

/** Who a new record is assigned to: every annotator (ALL) or one picked at random (RANDOM). */
function assigneesFor(annotators: Annotator[], method: string): Annotator[] {
  if (method !== "RANDOM" || annotators.length <= 1) return annotators;
  return [annotators[randomInt(annotators.length)]!];
}

/**
 * Turns record sources into records: the project or dataset must exist in the queue's space
 * (422 otherwise). Spans, traces and examples are referenced by id; their data lives with
 * their owners, so each record's data holds the reference.
 */
export async function resolveRecordSources(
  ports: RecordPorts,
  ctx: CallContext,
  spaceId: string,
  sources: RecordSource[],
  assignment: { annotators: Annotator[]; assignmentMethod: string },
): Promise<{ sources: RecordSourceInput[]; records: QueueRecord[] }> {
  const inputs = sources.map((s) => ({
    record_type: s.recordType,
    start_time: s.startTime,
    end_time: s.endTime,
    ids: s.ids,
  }));
  // The request's own rules first: a malformed request is 400 before any lookup.
  if (sources.length > 0) checkSources(inputs, []);
  const records: QueueRecord[] = [];
  for (const s of sources) {
    const record = (
      source_type: QueueRecord["source_type"],
      granularity: QueueRecord["granularity"],
      data: Record<string, unknown>,
    ): QueueRecord => ({
      id: uuidv7(),
      source_type,
      granularity,
      data,
      assignees: assigneesFor(assignment.annotators, assignment.assignmentMethod),
    });
    if (s.recordType === "EXAMPLE") {
      const ref = await ports.datasets.getResourceRef(ctx, "dataset", s.datasetId);
      if (!ref || ref.accountId !== ctx.principal.accountId || ref.spaceId !== spaceId)
        throw unprocessable("the dataset must exist in the queue's space");
      if (s.ids.length === 0)
        throw unprocessable("example_ids are required (adding a whole dataset is not supported)");
      for (const exampleId of s.ids)
        records.push(
          record("DATASET", null, {
            dataset_id: s.datasetId,
            ...(s.datasetVersionId ? { dataset_version_id: s.datasetVersionId } : {}),
            example_id: exampleId,
          }),
        );
    } else {
      const project = await findResource(ports.pool, "project", s.projectId);
      if (!project || project.accountId !== ctx.principal.accountId || project.spaceId !== spaceId)
        throw unprocessable("the project must exist in the queue's space");
      const span = s.recordType === "SPAN";
      for (const id of s.ids)
        records.push(
          record("SPANS", span ? "SPAN" : "TRACE", {
            project_id: s.projectId,
            [span ? "context.span_id" : "context.trace_id"]: id,
          }),
        );
    }
  }
  return { sources: inputs, records };
}
