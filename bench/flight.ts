import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { Message, Table, Utf8, vectorFromArray } from "apache-arrow";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { uuidv7 } from "@argus/platform";
import { varintBytes } from "@argus/platform/wire";
import {
  FlightDescriptor,
  FlightDescriptor_DescriptorType,
  FlightInfo,
  FlightServiceService,
  PutResult,
} from "@argus/proto/flight";
import { encodeFlightData, decodeFlightData } from "../services/gateway/src/flight/flightData.ts";
import {
  readRecordBatches,
  recordBatchFrame,
  schemaFrame,
} from "../services/gateway/src/flight/ipc.ts";
import { copyRowsInto, copyText, inTransaction } from "./copy.ts";
import { Api } from "./datasets.ts";
import type { Operation, OperationBenchmark } from "./operations.ts";
import { withBenchStack } from "./stack.ts";

/** 10 columns of ~100 characters: a row of ~1 KB of fields. */
const COLUMNS = 10;
const CELL = 100;

const cell = (row: number, column: number) =>
  `r${row}c${column} `.padEnd(CELL, "abcdefghijklmnopqrstuvwxyz0123456789 ".repeat(3));

const fieldsOf = (row: number) =>
  JSON.stringify(
    Object.fromEntries(Array.from({ length: COLUMNS }, (_, c) => [`c${c}`, cell(row, c)])),
  );

/** A Flight client of the gateway, as pyarrow's speaks: FlightData in, PutResult out. */
export function flightClient(address: string, key: string) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": -1,
    "grpc.max_send_message_length": -1,
  });
  const md = () => {
    const m = new grpc.Metadata();
    m.set("auth-token-bin", Buffer.from(key));
    return m;
  };
  /** A DoGet of a ticket: the server's stream of FlightData messages, still encoded. */
  const doGet = (ticket: string | Uint8Array): AsyncIterable<Buffer> =>
    client.makeServerStreamRequest(
      FlightServiceService.doGet.path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      FlightServiceServiceTicket(ticket),
      md(),
    );
  return {
    client,
    /**
     * Streams `messages` (FlightData, already encoded) and waits for the end of the call;
     * answers the first PutResult's app_metadata.
     */
    put(messages: readonly Buffer[]): Promise<Uint8Array> {
      return new Promise((resolve, reject) => {
        const call = client.makeBidiStreamRequest(
          FlightServiceService.doPut.path,
          (b: Buffer) => b,
          (b: Buffer) => b,
          md(),
        );
        let answer: Uint8Array | undefined;
        call.on("data", (b: Buffer) => (answer ??= PutResult.decode(b).appMetadata));
        call.on("error", reject);
        call.on("end", () => (answer ? resolve(answer) : reject(new Error("no PutResult"))));
        void (async () => {
          for (const m of messages)
            if (!call.write(m)) await new Promise((r) => call.once("drain", r));
          call.end();
        })();
      });
    },
    /**
     * Reads a DoGet to its end; returns the rows its record batches held (read from their
     * headers alone: the cheap client the download's benchmark measures the server with).
     */
    async get(ticket: string): Promise<number> {
      let rows = 0;
      for await (const b of doGet(ticket)) {
        const m = Message.decode(decodeFlightData(b).header);
        if (m.isRecordBatch()) rows += m.header().length;
      }
      return rows;
    },
    /** GetFlightInfo of a CMD descriptor, as the SDK's span export asks it first. */
    info(cmd: string): Promise<FlightInfo> {
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          FlightServiceService.getFlightInfo.path,
          (d: FlightDescriptor) => Buffer.from(FlightDescriptor.encode(d).finish()),
          (b: Buffer) => FlightInfo.decode(b),
          { type: FlightDescriptor_DescriptorType.CMD, cmd: Buffer.from(cmd), path: [] },
          md(),
          (err, info) => (err || !info ? reject(err ?? new Error("no FlightInfo")) : resolve(info)),
        );
      });
    },
    /**
     * DoGet of a ticket (its bytes as GetFlightInfo gave them), decoded as pyarrow's reader
     * does: every message through apache-arrow's IPC stream reader into record batches.
     * Answers the rows and the schema's columns.
     */
    async getArrow(ticket: Uint8Array): Promise<{ rows: number; columns: number }> {
      const messages = async function* () {
        for await (const b of doGet(ticket)) yield decodeFlightData(b);
      };
      const { schema, batches } = await readRecordBatches(messages());
      let rows = 0;
      for await (const batch of batches) {
        if (batch.numCols !== schema.fields.length) throw new Error("a batch lacks columns");
        rows += batch.numRows;
      }
      return { rows, columns: schema.fields.length };
    },
  };
}

/** A Ticket message with `ticket` as its bytes (field 1). */
function FlightServiceServiceTicket(ticket: string | Uint8Array): Buffer {
  const bytes = Buffer.from(ticket);
  return Buffer.concat([Buffer.from([0x0a]), varintBytes(bytes.length), bytes]);
}

/** Resident memory of a process, in bytes (Linux). */
export function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

const UPLOAD_ROWS = 100_000;
const BATCH_ROWS = 10_000;

/**
 * DoPut createDataset of 100 000 examples (10 columns, ~1 KB a row) until the dataset reads
 * through REST, versus ONE `COPY dataset.examples FROM STDIN` of the same rows. The client sends
 * ready-made FlightData (prepared untimed), as pyarrow would, in batches of 10 000 rows.
 */
export const flightCreateBenchmark = () => createBenchmark("flight");

/**
 * The floor under `flight-create-100k`: what the bulk design itself asks of Postgres, from a pg
 * pool with no gateway, service or Arrow in between. The rows are staged as JSON chunks under an
 * import (a statement a batch, as the service stages them), then the import's rows are inserted
 * into the examples from the chunks by the projection's own statement, in one transaction. Same
 * baseline: one `COPY` of the rows.
 */
export const flightCreateFloorBenchmark = () => createBenchmark("floor");

async function createBenchmark(subjectKind: "flight" | "floor"): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const flight = flightClient(stack.flightAddress, stack.apiKey);
    onStop(async () => flight.client.close());
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    onStop(() => pool.end());

    const table = new Table(
      Object.fromEntries(
        Array.from({ length: COLUMNS }, (_, c) => [
          `c${c}`,
          vectorFromArray(
            Array.from({ length: UPLOAD_ROWS }, (_, r) => cell(r, c)),
            new Utf8(),
          ),
        ]),
      ),
    );
    const batches = Array.from({ length: UPLOAD_ROWS / BATCH_ROWS }, (_, i) =>
      encodeFlightData(
        recordBatchFrame(table.slice(i * BATCH_ROWS, (i + 1) * BATCH_ROWS).batches[0]!),
      ),
    );
    const fields = Array.from({ length: UPLOAD_ROWS }, (_, r) => fieldsOf(r));
    let created = 0;
    let messages: Buffer[] = [];
    let chunks: string[] = [];
    let rows = "";
    let name = "";
    const pids = { gateway: stack.processes.gateway!.pid, dataset: stack.processes.dataset!.pid };
    const viaFlight: Operation = {
      name: "DoPut",
      prepare() {
        name = `flight-create-${++created}`;
        const cmd = JSON.stringify({
          createDataset: { spaceId, datasetName: name, datasetType: "GENERATIVE" },
        });
        const schema = schemaFrame(table.schema);
        // The first message: the descriptor and the schema.
        const descriptor = Buffer.concat([
          Buffer.from([0x08, 0x02, 0x12]),
          varintBytes(Buffer.byteLength(cmd)),
          Buffer.from(cmd),
        ]);
        const first = Buffer.concat([
          Buffer.from([0x0a]),
          varintBytes(descriptor.length),
          descriptor,
          encodeFlightData(schema),
        ]);
        messages = [first, ...batches];
      },
      async run() {
        await flight.put(messages);
        const listed = await api.call<{ datasets: { id: string }[] }>(
          "GET",
          `/v2/datasets?name=${name}`,
          200,
        );
        const id = listed.datasets[0]?.id;
        if (!id) throw new Error("the uploaded dataset is not readable");
        const page = await api.call<{ examples: unknown[] }>(
          "GET",
          `/v2/datasets/${encodeURIComponent(id)}/examples?limit=1`,
          200,
        );
        if (page.examples.length !== 1) throw new Error("the uploaded examples are not readable");
      },
      pids,
    };
    const floor: Operation = {
      name: "stage+project",
      prepare() {
        chunks = Array.from({ length: UPLOAD_ROWS / BATCH_ROWS }, (_, b) =>
          JSON.stringify(
            fields
              .slice(b * BATCH_ROWS, (b + 1) * BATCH_ROWS)
              .map((f) => ({ id: uuidv7(), fields: JSON.parse(f) as unknown })),
          ),
        );
      },
      async run() {
        const [importId, version, dataset] = [uuidv7(), uuidv7(), uuidv7()];
        await inTransaction(pool, async (client) => {
          await client.query(
            `insert into dataset.imports (id, kind, account_id, started_at, touched_at)
             values ($1, 'examples', $2, now(), now())`,
            [importId, uuidv7()],
          );
          for (const [seq, rows] of chunks.entries()) {
            await client.query(
              "insert into dataset.import_chunks (import_id, seq, rows) values ($1, $2, $3)",
              [importId, seq, rows],
            );
          }
          const res = await client.query(
            `insert into dataset.examples (version_id, id, dataset_id, fields, created_at, updated_at)
             select $1, x.id, $2, x.fields, now(), now()
               from dataset.import_chunks c
               cross join lateral jsonb_to_recordset(c.rows::jsonb) as x(id uuid, fields jsonb)
              where c.import_id = $3`,
            [version, dataset, importId],
          );
          if (res.rowCount !== UPLOAD_ROWS) throw new Error(`the floor wrote ${res.rowCount} rows`);
          await client.query("update dataset.imports set committed_at = now() where id = $1", [
            importId,
          ]);
        });
      },
      pids: {},
    };
    return {
      kind: "operations",
      name:
        subjectKind === "flight"
          ? `DoPut createDataset of ${UPLOAD_ROWS} examples (${COLUMNS} columns, ~1 KB a row) until readable through REST vs one COPY of the same rows`
          : `${UPLOAD_ROWS} examples staged as chunks and projected (the bulk design in Postgres alone) vs one COPY of the same rows`,
      maxOpsPerSlice: 2,
      subject: subjectKind === "flight" ? viaFlight : floor,
      baseline: {
        name: "COPY",
        prepare() {
          const [version, dataset, at] = [uuidv7(), uuidv7(), new Date().toISOString()];
          rows = fields
            .map((f) => `${version}\t${uuidv7()}\t${dataset}\t${copyText(f)}\t${at}\t${at}\n`)
            .join("");
        },
        run: () =>
          copyRowsInto(
            pool,
            `copy dataset.examples (version_id, id, dataset_id, fields, created_at, updated_at)
             from stdin`,
            rows,
            UPLOAD_ROWS,
          ),
        pids: {},
      },
      stop,
    };
  });
}

const DOWNLOAD_ROWS = 1_000_000;

/**
 * DoGet getDataset of a 1 000 000-example dataset versus `COPY … TO STDOUT` of the same rows
 * (id, times and fields of the version's examples), both read to their end by this process.
 * The examples are seeded in SQL (as the import's projection would write them, with their
 * column catalog). The peak growth of the gateway's and the dataset service's resident memory
 * during the DoGets is reported.
 */
export async function flightGetBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const created = await api.call<{ id: string; dataset_version_id?: string }>(
      "POST",
      "/v2/datasets",
      201,
      { name: "flight-get-1m", space_id: spaceId, examples: [JSON.parse(fieldsOf(0))] },
    );
    const datasetId = Buffer.from(created.id, "base64").toString().split(":")[1]!;
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 2,
      options: "-c search_path=dataset",
    });
    onStop(() => pool.end());
    const { rows: versions } = await pool.query<{ id: string }>(
      "select id from dataset_versions where dataset_id = $1",
      [datasetId],
    );
    const versionId = versions[0]!.id;
    const seeded = performance.now();
    // Fields built in SQL: the same ten ~100-character columns a row as the upload benchmark's.
    await pool.query(
      `insert into examples (version_id, id, dataset_id, fields, created_at, updated_at)
       select $1, (lpad(to_hex((extract(epoch from now()) * 1000)::bigint), 12, '0')
                  || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
              $2,
              jsonb_build_object(${Array.from(
                { length: COLUMNS },
                (_, c) =>
                  `'c${c}', rpad('r' || g || 'c${c} ', ${CELL}, 'abcdefghijklmnopqrstuvwxyz0123456789 ')`,
              ).join(", ")}),
              now(), now()
         from generate_series(1, ${DOWNLOAD_ROWS - 1}) g`,
      [versionId, datasetId],
    );
    await pool.query("vacuum analyze examples");
    console.info(
      `flight-get-1m: seeded ${DOWNLOAD_ROWS} examples in ${Math.round(performance.now() - seeded)} ms`,
    );
    const flight = flightClient(stack.flightAddress, stack.apiKey);
    onStop(async () => flight.client.close());
    const ticket = JSON.stringify({ getDataset: { spaceId, datasetId: created.id } });
    const pids = { gateway: stack.processes.gateway!.pid, dataset: stack.processes.dataset!.pid };
    const peaks = { gateway: 0, dataset: 0 };
    const before = { gateway: rss(pids.gateway), dataset: rss(pids.dataset) };
    let sampler: NodeJS.Timeout | undefined;
    onStop(async () => {
      clearInterval(sampler);
      console.info(
        `flight-get-1m: resident memory growth during the DoGets (peak − before): gateway ${mib(peaks.gateway - before.gateway)}, dataset ${mib(peaks.dataset - before.dataset)} (before: gateway ${mib(before.gateway)}, dataset ${mib(before.dataset)})`,
      );
    });
    return {
      kind: "operations",
      name: `DoGet getDataset of ${DOWNLOAD_ROWS} examples (${COLUMNS} columns, ~1 KB a row) vs COPY … TO STDOUT of the same rows`,
      maxOpsPerSlice: 1,
      subject: {
        name: "DoGet",
        prepare() {
          sampler ??= setInterval(() => {
            peaks.gateway = Math.max(peaks.gateway, rss(pids.gateway));
            peaks.dataset = Math.max(peaks.dataset, rss(pids.dataset));
          }, 50);
        },
        async run() {
          const rows = await flight.get(ticket);
          if (rows !== DOWNLOAD_ROWS) throw new Error(`DoGet read ${rows} rows`);
        },
        pids,
      },
      baseline: {
        name: "COPY",
        async run() {
          const client = await pool.connect();
          try {
            const copy = client.query(
              copyTo(`copy (select x.id, x.created_at, x.updated_at, x.fields from examples x
                             where x.dataset_id = '${datasetId}' and x.version_id = '${versionId}'
                               and not x.deleted order by x.id) to stdout`),
            );
            let lines = 0;
            for await (const chunk of copy as AsyncIterable<Buffer>)
              for (const b of chunk) if (b === 0x0a) lines++;
            if (lines !== DOWNLOAD_ROWS) throw new Error(`COPY read ${lines} rows`);
          } finally {
            client.release();
          }
        },
        pids: {},
      },
      stop,
    };
  });
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
