import { randomInt } from "node:crypto";
import type { Pool } from "pg";
import { DomainError, uuidv7, type CallContext } from "@argus/platform";
import type { RecordSource } from "@argus/proto/catalog/v1/annotations";
import {
  checkSources,
  type RecordDraft,
  type RecordSourceInput,
} from "./annotationQueueRecordRules.ts";
import { findResource } from "../shared/resourceRegistry.ts";
import type { DatasetPort } from "../peers/datasetPort.ts";
import type { SpanPort } from "./spanPort.ts";

export interface RecordPorts {
  pool: Pool;
  datasets: DatasetPort;
  spans: SpanPort;
}

const unprocessable = (detail: string) => new DomainError("unprocessable-entity", detail);

/**
 * Turns record sources into records: the project or dataset must exist in the queue's space
 * (422 otherwise; a dataset is asked of its owner, as the caller), and so must the spans and
 * traces named (asked of the tracing service, within the source's window). Spans, traces and
 * examples are referenced by id; their data lives with their owners, so each record holds the
 * reference. Each record gets a fresh id and a random draw (its annotator under RANDOM).
 */
export async function resolveRecordSources(
  ports: RecordPorts,
  ctx: CallContext,
  spaceId: string,
  sources: RecordSource[],
): Promise<{ sources: RecordSourceInput[]; records: RecordDraft[] }> {
  const inputs = sources.map((s) => ({
    record_type: s.recordType,
    start_time: s.startTime,
    end_time: s.endTime,
    ids: s.ids,
  }));
  // The request's own rules first: a malformed request is 400 before any lookup.
  if (sources.length > 0) checkSources(inputs, []);
  const inSpace = (r: { accountId: string; spaceId: string } | undefined) =>
    r !== undefined && r.accountId === ctx.principal.accountId && r.spaceId === spaceId;
  const records: RecordDraft[] = [];
  const record = (
    source_type: RecordDraft["source_type"],
    granularity: RecordDraft["granularity"],
    data: Record<string, unknown>,
  ) => records.push({ id: uuidv7(), source_type, granularity, data, draw: randomInt(2 ** 31) });
  for (const s of sources) {
    if (s.recordType === "EXAMPLE") {
      if (!inSpace(await ports.datasets.getResourceRef(ctx, "dataset", s.datasetId)))
        throw unprocessable("the dataset must exist in the queue's space");
      if (s.ids.length === 0)
        throw unprocessable("example_ids are required (adding a whole dataset is not supported)");
      const version = s.datasetVersionId ? { dataset_version_id: s.datasetVersionId } : {};
      for (const exampleId of s.ids)
        record("DATASET", null, { dataset_id: s.datasetId, ...version, example_id: exampleId });
    } else {
      if (!inSpace(await findResource(ports.pool, "project", s.projectId)))
        throw unprocessable("the project must exist in the queue's space");
      const [granularity, key] =
        s.recordType === "SPAN"
          ? (["SPAN", "context.span_id"] as const)
          : s.recordType === "SESSION"
            ? (["SESSION", "session.id"] as const)
            : (["TRACE", "context.trace_id"] as const);
      if (granularity !== "SESSION" && s.ids.length > 0) {
        const present = await ports.spans.present(ctx, {
          projectId: s.projectId,
          granularity,
          ids: s.ids,
          startTime: s.startTime,
          endTime: s.endTime,
        });
        const missing = s.ids.filter((id) => !present.has(id));
        if (missing.length > 0)
          throw unprocessable(
            `${missing.length} of the ${granularity === "SPAN" ? "span" : "trace"} ids name no ${granularity === "SPAN" ? "span" : "trace"} of the project (first: ${JSON.stringify(missing[0])})`,
          );
      }
      for (const id of s.ids) record("SPANS", granularity, { project_id: s.projectId, [key]: id });
    }
  }
  return { sources: inputs, records };
}
