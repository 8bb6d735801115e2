// `pnpm exec node bench/pgWrite.ts [rounds]`: what Postgres alone spends on a PATCH of 1000
// examples (`dataset-patch-1000`'s subject), statement by statement, on one connection with no
// service around it: the write's opening round trip (BEGIN, the dataset's row lock and its
// latest version, as one simple query, as the dataset service sends it), the event's append
// with its projection (the service's own statement, prepared as its driver prepares it), COMMIT;
// the append with its projection alone, committing by itself (what the rest costs beside it);
// beside them, in the same rounds, the floor's one statement (`baseline/patchFloor.ts`) and
// the `UPDATE` of `dataset-patch-1000`. Medians in ms, client to client over loopback. Where
// `bench/timeline.ts` says what a PATCH waits for inside the stack, this says how much of it
// is Postgres' own. Reported in bench/README.md ("Measured 2026-12-06 evening").
import pg from "pg";
import { createTestDatabase, startInfra, startStack, NO_RATE_LIMITS } from "@argus/testkit";
import { appendToStream } from "../packages/eventstore/src/streams/appendToStream.ts";
import { exampleProjections } from "../services/dataset/src/examples/exampleProjection.ts";
import { updateBatch, updatedEvents } from "../services/dataset/src/examples/exampleEvents.ts";
import { versionWithPresentLookup } from "../services/dataset/src/examples/exampleRows.ts";
import { patchedDataset } from "./datasetPatch.ts";
import { Api, uuidOf } from "./datasets.ts";
import { percentile } from "./stats.ts";

const rounds = Number(process.argv[2] ?? "300");
const { infra, stop: stopInfra } = await startInfra();
const db = await createTestDatabase(infra);
const stack = await startStack({
  databaseUrl: db.url,
  env: { ...NO_RATE_LIMITS, LOG_LEVEL: "warn" },
});
const api = new Api(stack);
const spaceId = await api.defaultSpaceId();
const { dataset, ids: publicIds } = await patchedDataset(api, "pg-write");
const ids = publicIds.map((id) => uuidOf("DatasetExample", id));
const datasetId = uuidOf("Dataset", dataset.id);
const versionId = dataset.versionUuid;
// The statements below are the only writers: no relay or consumer beside them.
await stack.stop();

const pool = new pg.Pool({ connectionString: db.url, max: 1, options: "-c search_path=dataset" });
const client = await pool.connect();
const times = new Map<string, number[]>();
const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const timed = async (name: string, run: () => Promise<unknown>) => {
  const start = performance.now();
  await run();
  const ms = performance.now() - start;
  times.set(name, [...(times.get(name) ?? []), ms]);
};
let flag = "a";
const flip = () => (flag = flag === "a" ? "b" : "a");
const target = { datasetId, spaceId: uuidOf("Space", spaceId), versionId };
const opening = `BEGIN; SELECT * FROM datasets WHERE id = '${datasetId}' FOR UPDATE; ${versionWithPresentLookup(datasetId, "", [])!}`;

/** The stack's append of an update of every example, with its projection, in one statement. */
function appendAndProject(): Promise<unknown> {
  const batch = updateBatch(ids.map((id, at) => ({ id, fields: { flag: flip() }, at })));
  const [event] = updatedEvents({ ...target, now: new Date() }, batch);
  if (event?.type !== "DatasetExamplesUpdated") throw new Error("no update event");
  const projection = exampleProjections.DatasetExamplesUpdated;
  if (typeof projection !== "object") throw new Error("DatasetExamplesUpdated is no statement");
  return appendToStream(
    client,
    "dataset",
    `dataset_examples-${datasetId}`,
    "any",
    [{ type: event.type, data: event.data, metadata: {} }],
    { maxEventBytes: 2 ** 20 },
    projection.statement(event.data),
  );
}

/** The stack's write: its opening, the append with its projection, COMMIT, one after another. */
async function stackWrite(): Promise<void> {
  await timed("opening (BEGIN, lock, version)", () => client.query(opening));
  await timed("append and projection", appendAndProject);
  await timed("COMMIT", () => client.query("COMMIT"));
}

/**
 * The same statement alone, committing by itself: no lock orders it and no BEGIN or COMMIT
 * goes with it. Not a write the stack may make (nothing orders it against another writer of
 * the dataset); what the lock and the transaction's own statements cost beside it.
 */
const aloneWrite = () => timed("append and projection alone, no lock (what-if)", appendAndProject);

/** The floor's statement: the event appended and the rows updated from it, prepared. */
async function floorWrite(): Promise<void> {
  const fields = JSON.stringify({ flag: flip() });
  const text = `{"dataset_id":"${datasetId}","at":"${new Date().toISOString()}","examples":[${ids.map((id) => `{"id":"${id}","fields":${fields}}`).join(",")}]}`;
  await timed("floor: event+update", () =>
    client.query({
      name: "floor",
      text: `with event as (
         insert into events (stream_id, stream_version, event_id, event_type, data, metadata)
         values ($1, (select coalesce(max(stream_version), 0) + 1 from events where stream_id = $1),
                 gen_random_uuid(), 'BenchFloorUpdated', $2::jsonb, '{}')
         returning data
       ), updated as (
         update examples e set fields = e.fields || x.fields, updated_at = now()
           from jsonb_to_recordset((select data -> 'examples' from event)) as x(id uuid, fields jsonb)
          where e.version_id = $3 and e.id = x.id
         returning 1)
       select count(*)::int as n from updated`,
      values: [`bench-floor-${datasetId}`, text, versionId],
    }),
  );
}

/** `dataset-patch-1000`'s baseline, unnamed as there. */
async function update(): Promise<void> {
  const patch = JSON.stringify({ flag: flip() });
  await timed("UPDATE", () =>
    client.query(
      `update examples e set fields = e.fields || x.patch
         from unnest($1::uuid[], $2::jsonb[]) as x(id, patch)
        where e.version_id = $3 and e.id = x.id`,
      [ids, ids.map(() => patch), versionId],
    ),
  );
}

try {
  const round = async () => {
    await stackWrite();
    await aloneWrite();
    await floorWrite();
    await update();
  };
  for (let i = 0; i < 50; i++) await round();
  times.clear();
  for (let i = 0; i < rounds; i++) await round();
  const stackParts = ["opening (BEGIN, lock, version)", "append and projection", "COMMIT"];
  const sum = stackParts.reduce((total, name) => total + median(times.get(name)!), 0);
  console.log(`${rounds} rounds, median ms, client to client:`);
  for (const [name, values] of times)
    console.log(`${median(values).toFixed(3).padStart(8)}  ${name}`);
  console.log(`${sum.toFixed(3).padStart(8)}  the stack's write (the sum of its three)`);
} finally {
  client.release();
  await pool.end();
  await db.drop();
  await stopInfra();
}
