import { DataType, type Schema, type Vector } from "apache-arrow";
import { LIMITS } from "@argus/contracts/limits";
import { DomainError, encodeId } from "@argus/platform";
import {
  DatasetBulkServiceService,
  type ImportRunsMessage,
  type ImportedRun,
} from "@argus/proto/dataset/v1/bulk";
import {
  CreateExperimentDBEntryResponse,
  DoActionRequest,
  PostExperimentDataResponse,
  type GetExperimentRequest,
  type PostExperimentDataRequest,
} from "@argus/proto/public/flight";
import { NO_EXAMPLE, exampleUuid } from "../routes/datasets.ts";
import type { BulkBackend } from "./bulk.ts";
import type { FlightCaller } from "./call.ts";
import { BYTES_PER_MESSAGE, ROWS_PER_MESSAGE, columnOf, downloadOf } from "./datasets.ts";
import { idOf, invalid, jsonObject, requestCase, required } from "./requests.ts";
import type { FlightDownload, FlightUpload } from "./service.ts";
import { rowsJson, uploadColumns, type UploadColumn } from "./uploadColumns.ts";

/** The run columns with a place of their own; every other column is one of the run's fields. */
const RUN_COLUMNS = new Set(["example_id", "output"]);
/** The SDK reads a run's `result` back as text (it parses no task output). */
const RUN_TEXT_COLUMNS = new Set(["result"]);

/** The action the SDK creates an experiment with before it uploads the runs (#2). */
export const CREATE_EXPERIMENT_DB_ENTRY = "create_experiment_db_entry";

/** The OTLP project an experiment's task spans go to (the SDK exports them there itself). */
const traceModelName = (experimentId: string): string => `experiment-${experimentId}`;

const isText = (t: DataType) =>
  DataType.isUtf8(t) || DataType.isLargeUtf8(t) || DataType.isUtf8View(t);

function fieldType(schema: Schema, name: string): DataType | undefined {
  const t = schema.fields.find((f) => f.name === name)?.type;
  return t && DataType.isDictionary(t) ? t.dictionary : t;
}

/** How a run's example id and output are read from their columns. */
function runReaders(schema: Schema) {
  const exampleType = fieldType(schema, "example_id");
  if (exampleType && !isText(exampleType) && !DataType.isNull(exampleType))
    throw invalid(
      `column "example_id" must hold the examples' ids as text, not ${String(exampleType)}`,
    );
  const outputType = fieldType(schema, "output");
  if (outputType === undefined) throw invalid('the runs have no "output" column');
  // An output that is not text is kept as the JSON text of its value.
  const [asJson] = isText(outputType)
    ? [undefined]
    : uploadColumns(schema, {
        skip: new Set(schema.fields.map((f) => f.name).filter((n) => n !== "output")),
        keepText: new Set(["output"]),
      });
  return {
    exampleId(v: Vector | null, i: number): string {
      const raw = v?.get(i) as string | null | undefined;
      if (raw === null || raw === undefined || raw === "") return "";
      // An id that names no example is one the service finds in no version: it says so.
      return exampleUuid(raw) ?? NO_EXAMPLE;
    },
    output(v: Vector, i: number, base: number): string {
      if (!asJson) return (v.get(i) as string | null) ?? "";
      return asJson.json(v, i, base) ?? "";
    },
  };
}

/** The runs of each batch, in messages bounded as example rows are (datasets.ts). */
async function* runMessages(
  upload: FlightUpload,
  fields: readonly UploadColumn[],
): AsyncGenerator<ImportedRun[]> {
  const read = runReaders(upload.schema);
  let next = 0;
  for await (const batch of upload.batches) {
    const examples = batch.getChild("example_id");
    const outputs = batch.getChild("output")!;
    for (let from = 0; from < batch.numRows; from += ROWS_PER_MESSAGE) {
      const to = Math.min(batch.numRows, from + ROWS_PER_MESSAGE);
      const rows = rowsJson(batch, fields, from, to, next);
      const runs: ImportedRun[] = [];
      let bytes = 0;
      for (let i = from; i < to; i++) {
        const run = {
          exampleId: read.exampleId(examples, i),
          output: read.output(outputs, i, next - from),
          fieldsJson: rows[i - from]!,
        };
        const size = run.output.length + run.fieldsJson.length;
        if (size * 3 > LIMITS.EXAMPLE_MAX_BYTES) {
          const exact = Buffer.byteLength(run.output) + Buffer.byteLength(run.fieldsJson);
          if (exact > LIMITS.EXAMPLE_MAX_BYTES)
            throw new DomainError(
              "payload-too-large",
              `row ${next + i - from} is ${exact} bytes; one run holds at most ${LIMITS.EXAMPLE_MAX_BYTES}`,
            );
        }
        runs.push(run);
        bytes += size;
        if (bytes > BYTES_PER_MESSAGE) {
          yield runs.splice(0);
          bytes = 0;
        }
      }
      if (runs.length > 0) yield runs;
      next += to - from;
    }
  }
}

function runPart<C extends NonNullable<ImportRunsMessage["part"]>["$case"]>(
  $case: C,
  value: Extract<NonNullable<ImportRunsMessage["part"]>, { $case: C }>["value"],
): ImportRunsMessage {
  return { part: { $case, value } as ImportRunsMessage["part"] };
}

/**
 * The experiments' Flight requests: #2 DoAction create_experiment_db_entry, #3 DoPut
 * postExperimentData, #5 DoGet getExperiment.
 */
export function experimentFlight(dataset: BulkBackend) {
  return {
    /** An experiment without runs on the dataset's latest version; the runs follow (#3). */
    async createExperimentDbEntry(body: Uint8Array, caller: FlightCaller): Promise<Uint8Array[]> {
      const request = requestCase(
        DoActionRequest.fromJSON(jsonObject(body, "the action's body")),
        "the action's body",
        ["createExperimentDbEntry"],
      );
      if (request.$case !== "createExperimentDbEntry")
        throw invalid(`the ${CREATE_EXPERIMENT_DB_ENTRY} action takes createExperimentDbEntry`);
      const req = request.value;
      idOf("Space", req.spaceId, "createExperimentDbEntry.spaceId");
      if (req.datasetIdentifier?.$case !== "datasetId")
        throw invalid(
          "createExperimentDbEntry.datasetId is required (by datasetName is not served)",
        );
      const datasetId = idOf(
        "Dataset",
        req.datasetIdentifier.value,
        "createExperimentDbEntry.datasetId",
      );
      const name = required(req.experimentName, "createExperimentDbEntry.experimentName");
      const experiment = await dataset.call(
        DatasetBulkServiceService.createExperimentEntry,
        { datasetId, name },
        caller,
      );
      const experimentId = encodeId("Experiment", experiment.id);
      return [
        CreateExperimentDBEntryResponse.encode({
          experimentId,
          datasetId: encodeId("Dataset", experiment.datasetId),
          traceModelName: req.traceModelName || traceModelName(experiment.id),
        }).finish(),
      ];
    },

    /** Runs appended to the experiment of that name on the dataset, in one event at the end. */
    async postExperimentData(
      req: PostExperimentDataRequest,
      upload: FlightUpload,
      caller: FlightCaller,
    ): Promise<Uint8Array> {
      idOf("Space", req.spaceId, "postExperimentData.spaceId");
      const datasetId = idOf("Dataset", req.datasetId, "postExperimentData.datasetId");
      const experimentName = required(req.experimentName, "postExperimentData.experimentName");
      const fields = uploadColumns(upload.schema, {
        skip: RUN_COLUMNS,
        keepText: RUN_TEXT_COLUMNS,
      });
      const stream = dataset.upload(DatasetBulkServiceService.importRuns, caller);
      try {
        await stream.send(
          runPart("start", { datasetId, experimentName, columns: fields.map(columnOf) }),
        );
        let count = 0;
        for await (const runs of runMessages(upload, fields)) {
          await stream.send(runPart("rows", { runs }));
          count += runs.length;
        }
        await stream.send(runPart("end", { rowCount: BigInt(count) }));
        const res = await stream.finish();
        return PostExperimentDataResponse.encode({
          experimentId: encodeId("Experiment", res.experiment!.id),
          datasetId: encodeId("Dataset", res.experiment!.datasetId),
        }).finish();
      } catch (err) {
        stream.cancel();
        throw err;
      }
    },

    /** An experiment's runs, batch by batch. */
    async getExperiment(req: GetExperimentRequest, caller: FlightCaller): Promise<FlightDownload> {
      if (req.experimentId === "")
        throw invalid("getExperiment.experimentId is required (by experimentName is not served)");
      const experimentId = idOf("Experiment", req.experimentId, "getExperiment.experimentId");
      return downloadOf(
        dataset.download(DatasetBulkServiceService.exportRuns, { experimentId }, caller),
        req.spaceId,
        "experiment",
      );
    },
  };
}
