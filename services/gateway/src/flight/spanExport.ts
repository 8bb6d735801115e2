import { decodeExportMessage, encodeId } from "@argus/platform";
import { FlightDescriptor_DescriptorType, type FlightInfo } from "@argus/proto/flight";
import {
  RecordQueryDescriptor,
  RecordQueryDescriptor_Environment,
} from "@argus/proto/public/flight";
import { TracingServiceService, type ExportSpansRequest } from "@argus/proto/tracing/v1/tracing";
import type { BulkBackend } from "./bulk.ts";
import type { FlightCaller } from "./call.ts";
import { downloadOf } from "./datasets.ts";
import { idOf, invalid, jsonObject, required } from "./requests.ts";
import type { FlightDownload } from "./service.ts";

/**
 * The official SDK's span export (`spans.export_to_df` / `export_to_parquet`,
 * public-v2-flight.md rows 9–10): GetFlightInfo with a RecordQueryDescriptor counts the spans
 * and hands out a ticket of this server's making, `{"exportSpans": {…}}`, naming the resolved
 * request; DoGet with it streams the spans. The ticket carries nothing the DoGet trusts: the
 * tracing service authorizes it again, for whoever presents it.
 */

/** The key of the tickets GetFlightInfo hands out (FlightHandlers.ownTickets). */
export const EXPORT_SPANS_TICKET = "exportSpans";

const D = "the RecordQueryDescriptor";

/** ExportSpans, its batches read with views of each message instead of copies of it. */
const EXPORT_SPANS = {
  ...TracingServiceService.exportSpans,
  responseDeserialize: decodeExportMessage,
};

function instant(value: Date | undefined, field: string): string {
  if (value === undefined) throw invalid(`${D}: ${field} is required`);
  if (Number.isNaN(value.getTime())) throw invalid(`${D}: ${field} is not an RFC 3339 timestamp`);
  return value.toISOString();
}

/**
 * A descriptor's command → the tracing service's request (its space as the public id).
 * What the SDK may ask that Argus does not do is refused by name, never ignored: classic ML
 * environments, similarity search. `streamChunkSize` is a hint the server
 * may ignore (its batches are its own size); `includeActuals`, `modelVersion` and `batchId`
 * mean nothing for spans.
 */
export function spanExportRequest(json: Record<string, unknown>): ExportSpansRequest {
  let d: RecordQueryDescriptor;
  try {
    d = RecordQueryDescriptor.fromJSON(json);
  } catch (err) {
    throw invalid(`${D} is malformed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (d.environment !== RecordQueryDescriptor_Environment.TRACING)
    throw invalid(
      `${D}: only environment TRACING (span export) is served, not ${JSON.stringify(json.environment ?? "UNKNOWN")}`,
    );
  const spaceId = idOf("Space", d.spaceId, `${D}: spaceId`);
  const projectName = required(d.modelId, `${D}: modelId (the project name)`);
  const startTime = instant(d.startTime, "startTime");
  const endTime = instant(d.endTime, "endTime");
  if (startTime >= endTime) throw invalid(`${D}: startTime must be before endTime`);
  if (d.similaritySearchParams !== undefined)
    throw invalid(`${D}: similaritySearchParams is not served`);
  if (d.sampleRate !== undefined && !(d.sampleRate > 0 && d.sampleRate <= 1))
    throw invalid(`${D}: sampleRate must be above 0 and at most 1`);
  if (d.streamChunkSize !== undefined && d.streamChunkSize < 1n)
    throw invalid(`${D}: streamChunkSize must be positive`);
  return {
    spaceId,
    projectName,
    startTime,
    endTime,
    filter: d.filterExpression.trim(),
    columns: d.projectedColumns,
    ...(d.sampleRate !== undefined && d.sampleRate !== 1 ? { sampleRate: d.sampleRate } : {}),
  };
}

export function spanExportFlight(tracing: BulkBackend) {
  return {
    /** #9: the count the SDK reads (0: it asks nothing more) and the one endpoint's ticket. */
    async getFlightInfo(cmd: Uint8Array, caller: FlightCaller): Promise<FlightInfo> {
      const json = jsonObject(cmd, "the descriptor's command");
      const { totalRecords } = await tracing.call(
        TracingServiceService.countExportSpans,
        spanExportRequest(json),
        caller,
      );
      const ticket = Buffer.from(JSON.stringify({ [EXPORT_SPANS_TICKET]: json }));
      return {
        schema: Buffer.alloc(0),
        flightDescriptor: {
          type: FlightDescriptor_DescriptorType.CMD,
          cmd: Buffer.from(cmd),
          path: [],
        },
        endpoint: [{ ticket: { ticket }, location: [] }],
        totalRecords,
        totalBytes: -1n,
        ordered: false,
      };
    },

    /** #10: the ticket's spans, batch by batch as the tracing service reads them. */
    exportSpans(value: unknown, caller: FlightCaller): Promise<FlightDownload> {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw invalid(`the ticket's ${EXPORT_SPANS_TICKET} must be a JSON object`);
      const req = spanExportRequest(value as Record<string, unknown>);
      return downloadOf(
        tracing.download(EXPORT_SPANS, req, caller),
        encodeId("Space", req.spaceId),
        "project",
      );
    },
  };
}
