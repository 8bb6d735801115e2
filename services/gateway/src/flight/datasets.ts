import type { RecordBatch } from "apache-arrow";
import { LIMITS } from "@argus/contracts/limits";
import { DomainError, encodeId, notFound } from "@argus/platform";
import { lengthDelimitedSize, writeLengthHeader } from "@argus/platform/wire";
import {
  DatasetBulkServiceService,
  ImportDatasetMessage,
  type ExportMessage,
} from "@argus/proto/dataset/v1/bulk";
import {
  CreateDatasetResponse,
  DatasetType,
  type CreateDatasetRequest,
  type GetDatasetRequest,
} from "@argus/proto/public/flight";
import type { BulkBackend } from "./bulk.ts";
import type { FlightCaller } from "./call.ts";
import { batchFrame, downloadSchema } from "./downloadColumns.ts";
import { idOf, invalid, required } from "./requests.ts";
import type { FlightDownload, FlightUpload } from "./service.ts";
import { rowsJson, uploadColumns, type UploadColumn } from "./uploadColumns.ts";

/** The columns of an example upload the wire contract reserves: ids and times are Argus's. */
const EXAMPLE_SYSTEM_COLUMNS = new Set(["id", "created_at", "updated_at"]);

/** Rows per message to the dataset service, and bytes: small enough to keep memory flat. */
export const ROWS_PER_MESSAGE = 1000;
export const BYTES_PER_MESSAGE = 1 << 20;

const rowTooLarge = (row: number, bytes: number) =>
  new DomainError(
    "payload-too-large",
    `row ${row} is ${bytes} bytes of fields; one example holds at most ${LIMITS.EXAMPLE_MAX_BYTES}`,
  );

/**
 * Each batch's rows as JSON text, in messages of at most ROWS_PER_MESSAGE rows and about
 * BYTES_PER_MESSAGE bytes, made as the previous one was taken: one slice of one batch in
 * memory at a time, whatever the batch's size. A row over the example limit is refused here,
 * before it could exceed a gRPC message (the dataset service applies the limit as well).
 */
async function* rowMessages(
  batches: AsyncIterable<RecordBatch>,
  columns: readonly UploadColumn[],
): AsyncGenerator<{ rows: string[]; first: number }> {
  let next = 0;
  for await (const batch of batches) {
    for (let from = 0; from < batch.numRows;) {
      const to = Math.min(batch.numRows, from + ROWS_PER_MESSAGE);
      const rows = rowsJson(batch, columns, from, to, next);
      let cut = rows.length;
      let bytes = 0;
      for (let i = 0; i < rows.length; i++) {
        const len = rows[i]!.length;
        // A UTF-16 length bounds the UTF-8 one within 3x: measure exactly only when near.
        if (len * 3 > LIMITS.EXAMPLE_MAX_BYTES) {
          const exact = Buffer.byteLength(rows[i]!);
          if (exact > LIMITS.EXAMPLE_MAX_BYTES) throw rowTooLarge(next + i, exact);
        }
        bytes += len;
        if (bytes > BYTES_PER_MESSAGE && i > 0) {
          cut = i;
          break;
        }
      }
      yield { rows: rows.slice(0, cut), first: next };
      next += cut;
      from += cut;
    }
  }
}

/**
 * ImportDatasetMessage's protobuf bytes, as the generated encoder writes them, but a rows
 * message (~1 MiB of row text) is written straight into one buffer of its exact size: the
 * generated path grows its buffer by doubling, then copies the result twice.
 */
export function serializeImportMessage(message: ImportDatasetMessage): Buffer {
  if (message.part?.$case !== "rows")
    return Buffer.from(ImportDatasetMessage.encode(message).finish());
  const rows = message.part.value.fieldsJson;
  const lengths = rows.map((r) => Buffer.byteLength(r));
  let inner = 0;
  for (const length of lengths) inner += lengthDelimitedSize(length);
  const buf = Buffer.allocUnsafe(lengthDelimitedSize(inner));
  // Field 2 (rows) and field 1 of it (fields_json), both length-delimited.
  let at = writeLengthHeader(buf, 0, 2, inner);
  for (let i = 0; i < rows.length; i++) {
    at = writeLengthHeader(buf, at, 1, lengths[i]!);
    at += buf.write(rows[i]!, at);
  }
  return buf;
}

const importDataset = {
  ...DatasetBulkServiceService.importDataset,
  requestSerialize: serializeImportMessage,
};

/** The datasets' Flight requests: #1 DoPut createDataset, #4 DoGet getDataset. */
export function datasetFlight(dataset: BulkBackend) {
  return {
    /**
     * The upload becomes a new dataset (its first version) in one event once the stream ends;
     * a stream cut before commits nothing. The answer is the dataset's public id.
     */
    async createDataset(
      req: CreateDatasetRequest,
      upload: FlightUpload,
      caller: FlightCaller,
    ): Promise<Uint8Array> {
      const spaceId = idOf("Space", req.spaceId, "createDataset.spaceId");
      const name = required(req.datasetName, "createDataset.datasetName");
      if (req.datasetType !== DatasetType.GENERATIVE && req.datasetType !== DatasetType.UNKNOWN)
        throw invalid("createDataset.datasetType: only GENERATIVE datasets are served");
      const columns = uploadColumns(upload.schema, { skip: EXAMPLE_SYSTEM_COLUMNS });
      const stream = dataset.upload(importDataset, caller);
      try {
        await stream.send(part("start", { spaceId, name, columns: columns.map(columnOf) }));
        let count = 0;
        for await (const m of rowMessages(upload.batches, columns)) {
          await stream.send(part("rows", { fieldsJson: m.rows }));
          count += m.rows.length;
        }
        await stream.send(part("end", { rowCount: BigInt(count) }));
        const res = await stream.finish();
        return CreateDatasetResponse.encode({
          datasetId: encodeId("Dataset", res.dataset!.id),
        }).finish();
      } catch (err) {
        stream.cancel();
        throw err;
      }
    },

    /** The examples of a version (the latest without `datasetVersion`), batch by batch. */
    async getDataset(req: GetDatasetRequest, caller: FlightCaller): Promise<FlightDownload> {
      const id = req.datasetIdentifier;
      if (id?.$case !== "datasetId")
        throw invalid("getDataset.datasetId is required (getDataset by datasetName is not served)");
      const datasetId = idOf("Dataset", id.value, "getDataset.datasetId");
      const versionId = req.datasetVersion
        ? idOf("DatasetVersion", req.datasetVersion, "getDataset.datasetVersion")
        : "";
      return downloadOf(
        dataset.download(
          DatasetBulkServiceService.exportExamples,
          { datasetId, versionId },
          caller,
        ),
        req.spaceId,
        "dataset",
      );
    },
  };
}

export const columnOf = (c: UploadColumn) => ({ name: c.name, kinds: c.kinds });

/** One message of an upload stream (the generated type's oneof, spelled shortly). */
function part<C extends NonNullable<ImportDatasetMessage["part"]>["$case"]>(
  $case: C,
  value: Extract<NonNullable<ImportDatasetMessage["part"]>, { $case: C }>["value"],
): ImportDatasetMessage {
  return { part: { $case, value } as ImportDatasetMessage["part"] };
}

/**
 * A download from its header on: the schema the header names, then each batch as an Arrow IPC
 * record batch (batchFrame). The request's space, when given, must be the resource's (anything
 * else reads as not found).
 */
export async function downloadOf(
  messages: AsyncGenerator<ExportMessage>,
  spaceId: string,
  what: string,
): Promise<FlightDownload> {
  const first = await messages.next();
  const header = first.done ? undefined : first.value.part;
  if (header?.$case !== "header") {
    await messages.return(undefined);
    throw new Error(`the ${what} download began without its header`);
  }
  if (spaceId !== "" && encodeId("Space", header.value.spaceId) !== spaceId) {
    await messages.return(undefined);
    throw notFound(what);
  }
  const schema = downloadSchema(header.value.columns);
  const batches = async function* () {
    for await (const m of messages) {
      if (m.part?.$case !== "batch") throw new Error(`the ${what} download sent a second header`);
      yield batchFrame(schema, m.part.value.rowCount, m.part.value.columns);
    }
  };
  return { schema, batches: batches() };
}
