import { chunkBySize, EVENT_PAYLOAD_BYTES } from "@argus/eventstore";
import { uuidv7 } from "@argus/platform";
import pg from "pg";
import { createFloorEvents, FLOOR_EVENTS } from "./baseline/floorEvents.ts";
import { copyRowsInto, copyText, inTransaction } from "./copy.ts";
import { Api } from "./datasets.ts";
import type { Operation, OperationBenchmark } from "./operations.ts";
import { withBenchStack } from "./stack.ts";
import { prepared } from "./baseline/prepared.ts";

// The floor's two statements a chunk of examples: its event, then its rows from the event's data.
const appendInserted = prepared(
  "append_inserted",
  `insert into ${FLOOR_EVENTS} (stream_id, stream_version, event_id, event_type, data, metadata)
   values ($1, $2, gen_random_uuid(), 'BenchFloorInserted', $3::jsonb, '{}')`,
);
const insertExamples = prepared(
  "insert_examples",
  `insert into dataset.examples (version_id, id, dataset_id, fields, created_at, updated_at)
   select $1, x.id, $2, x.fields, now(), now()
     from jsonb_to_recordset(($3::jsonb) -> 'examples') as x(id uuid, fields jsonb)`,
);

const EXAMPLES = 1000;
/** The gateway's largest dataset write body; ours stays just under it. */
const MAX_BODY = 8 * 1024 * 1024;

const WORDS = (
  "the model answered question about a user who asked for help with their order and then " +
  "said refund policy shipping delay weather forecast summary translate paragraph into french " +
  "explain code review bug fix test case expected output actual output score label correct"
).split(" ");

/** Text of exactly `length` characters, words in a fixed pseudo-random order (seeded by `n`). */
export function text(n: number, length: number): string {
  let x = (Math.imul(n, 2654435761) + 1) >>> 0;
  let s = `example ${n}:`;
  while (s.length < length) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += ` ${WORDS[(x >>> 16) % WORDS.length]!}`;
  }
  return s.slice(0, length);
}

/**
 * Creating a dataset of 1000 examples of ~8 KiB text each, a body just under the gateway's
 * 8 MiB limit (issue "Dataset service"): POST /v2/datasets through the whole stack (body read
 * and OpenAPI validation, gRPC, the dataset and version rows, one set-based insert of the
 * examples, the events appended to NATS: about 9 of them, each under a NATS message) versus the
 * least the database must do, as the issue names it: ONE `COPY dataset.examples FROM STDIN` of the
 * same 1000 rows (the columns the service's projection writes), on a pg pool. Each operation
 * creates a new dataset (a unique name) or copies under a new version id; `prepare` builds the
 * next body or COPY text, untimed.
 */
export const datasetCreateBenchmark = () => createBenchmark("api");

/**
 * The floor under `dataset-create-8mib`: what the event-sourced create asks of Postgres alone,
 * from a pg pool with no gateway or service in between. In one transaction, the examples'
 * events are appended (the same chunks of at most EVENT_PAYLOAD_BYTES as the service appends,
 * under a stream and a type no projection or consumer knows) and each event's examples are
 * inserted from its JSON, as the projection inserts them. Same baseline: one `COPY`.
 */
export const datasetCreateFloorBenchmark = () => createBenchmark("floor");

async function createBenchmark(subjectKind: "api" | "floor"): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const nameOf = (n: number) => `create-8mib-${String(n).padStart(6, "0")}`;

    // Every example the same length, as much as fits once the JSON around them is counted.
    const frame = JSON.stringify({
      name: nameOf(0),
      space_id: spaceId,
      examples: Array.from({ length: EXAMPLES }, () => ({ input: "" })),
    }).length;
    const length = Math.floor((MAX_BODY - 1 - frame) / EXAMPLES);
    const fields = Array.from({ length: EXAMPLES }, (_, n) =>
      JSON.stringify({ input: text(n, length) }),
    );
    const examplesJson = `[${fields.join(",")}]`;
    const bodyOf = (n: number) =>
      `{"name":${JSON.stringify(nameOf(n))},"space_id":${JSON.stringify(spaceId)},"examples":${examplesJson}}`;
    const bytes = Buffer.byteLength(bodyOf(0));
    if (bytes >= MAX_BODY || bytes < MAX_BODY - 64 * 1024) {
      throw new Error(`the create body is ${bytes} bytes, not just under ${MAX_BODY}`);
    }
    console.info(
      `dataset-create-8mib: ${EXAMPLES} examples of ${length} characters, a ${bytes}-byte body`,
    );

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    onStop(() => pool.end());
    await createFloorEvents(pool);

    let created = 0;
    let body = "";
    let rows = "";
    let events: { stream: string; version: string; dataset: string; data: string[] } | undefined;
    // identity: its audit consumer reads each create's events, beside the next create.
    const pids = {
      gateway: stack.processes.gateway!.pid,
      dataset: stack.processes.dataset!.pid,
      identity: stack.processes.identity!.pid,
    };
    const viaApi: Operation = {
      name: "POST",
      prepare() {
        body = bodyOf(++created);
      },
      async run() {
        const res = await api.call<{ id?: string; example_ids?: string[] }>(
          "POST",
          "/v2/datasets",
          201,
          body,
        );
        if (typeof res.id !== "string") throw new Error("POST /v2/datasets answered no id");
        if (res.example_ids !== undefined && res.example_ids.length !== EXAMPLES) {
          throw new Error(`POST /v2/datasets created ${res.example_ids.length} examples`);
        }
      },
      pids,
    };
    const floor: Operation = {
      name: "events+insert",
      prepare() {
        const [version, dataset, at] = [uuidv7(), uuidv7(), new Date().toISOString()];
        const examples = fields.map((f) => ({
          id: uuidv7(),
          fields: JSON.parse(f) as unknown,
          bytes: Buffer.byteLength(f),
        }));
        const chunks = chunkBySize(examples, (e) => e.bytes + 64, EVENT_PAYLOAD_BYTES);
        events = {
          stream: `bench_floor-${dataset}`,
          version,
          dataset,
          data: chunks.map((chunk) =>
            JSON.stringify({
              dataset_id: dataset,
              version_id: version,
              at,
              examples: chunk.map(({ id, fields: f }) => ({ id, fields: f })),
            }),
          ),
        };
      },
      async run() {
        const e = events!;
        await inTransaction(pool, async (client) => {
          let inserted = 0;
          for (const [n, data] of e.data.entries()) {
            await client.query(appendInserted([e.stream, n + 1, data]));
            const res = await client.query(insertExamples([e.version, e.dataset, data]));
            inserted += res.rowCount ?? 0;
          }
          if (inserted !== EXAMPLES) throw new Error(`the floor inserted ${inserted} examples`);
        });
      },
      pids: {},
    };
    return {
      kind: "operations",
      name:
        subjectKind === "api"
          ? `create a dataset of ${EXAMPLES} × ${length}-character examples (${bytes}-byte body): POST /v2/datasets vs one COPY of the same rows`
          : `${EXAMPLES} × ${length}-character examples as events and rows (the create's design in Postgres alone) vs one COPY of the same rows`,
      // 8 MiB more in Postgres (and NATS) per operation: a slice stops at 10.
      maxOpsPerSlice: 10,
      subject: subjectKind === "api" ? viaApi : floor,
      // Judged against the floor in the same rounds too (bench/README.md, "Every goal").
      ...(subjectKind === "api" && { floors: [floor] }),
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
            EXAMPLES,
          ),
        pids: {},
      },
      stop,
    };
  });
}
