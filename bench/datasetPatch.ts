import pg from "pg";
import { createFloorEvents } from "./baseline/floorEvents.ts";
import { appendAndUpdate, patchEventText } from "./baseline/patchFloor.ts";
import {
  Api,
  createDataset,
  examplesPath,
  uuidOf,
  type CreatedDataset,
  type ExamplesPage,
} from "./datasets.ts";
import type { Operation, OperationBenchmark } from "./operations.ts";
import { spawnTwoHop } from "./getSpace.ts";
import { withBenchStack } from "./stack.ts";

const SIZE = 1000;

/**
 * An in-place update of 1000 examples (issue "Dataset service"): PATCH /v2/datasets/{id}/examples
 * through the whole stack (gateway validation, gRPC, the dataset's row lock, the presence check,
 * the update, the events appended to NATS) versus ONE `update … from unnest(ids, patches)` of the
 * same 1000 rows on a pg pool. Each side sets one field, `flag`, of every example; the value
 * flips on every operation, whichever side runs it, so each write really changes 1000 rows.
 * Three floors run in the same rounds as further sides: the Postgres one below
 * (`dataset-patch-floor`'s subject), the shape's own (`baseline/twoHop.ts`: bare Express, one
 * grpc-js hop, a bare service running that Postgres floor's one statement and publishing its
 * event to JetStream), fed the PATCH's own body, and that shape with the audit log every event
 * of the stack gets (`baseline/audit.ts`: a bare consumer inserting one row per event), and that
 * shape with the stack's own append and projection alone in place of the Postgres floor's
 * statement (no lock, BEGIN or COMMIT: what the service's JavaScript and its transaction add
 * over it is the PATCH's ratio to it).
 */
export const datasetPatchBenchmark = () => patchBenchmark("api");

/**
 * The same UPDATE versus the least an event-sourced PATCH must do in Postgres: in one
 * statement, append the update's event (the same 1000 `{id, fields}` as `jsonb`) to the
 * dataset's event table and update the 1000 rows from the appended row, as the projection does
 * for a version's own rows, from a pg pool with no service, presence check or lock in between.
 * Its ratio is the floor under `dataset-patch-1000`'s.
 */
export const datasetPatchFloorBenchmark = () => patchBenchmark("floor");

async function patchBenchmark(subject: "api" | "floor"): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, natsUrl, onStop, stop }) => {
    const api = new Api(stack);
    const { dataset, ids: publicIds } = await patchedDataset(api, "patch");
    const uuids = publicIds.map((id) => uuidOf("DatasetExample", id));
    const datasetUuid = uuidOf("Dataset", dataset.id);

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    onStop(() => pool.end());
    await createFloorEvents(pool);

    let value = "b";
    const flip = () => (value = value === "a" ? "b" : "a");
    const path = `/v2/datasets/${encodeURIComponent(dataset.id)}/examples`;
    let body = "";
    let patches: string[] = [];
    // identity: its audit consumer writes each PATCH's entry, beside the next PATCH.
    const pids = {
      gateway: stack.processes.gateway!.pid,
      dataset: stack.processes.dataset!.pid,
      identity: stack.processes.identity!.pid,
    };
    // The same body as the PATCH's, to the API or to the two-hop floor's front.
    const patchBody = () => {
      const flag = flip();
      body = JSON.stringify({ examples: publicIds.map((id) => ({ id, flag })) });
    };
    const patchVia = (via: Api) => async () => {
      const res = await via.call<{ example_ids: string[] }>("PATCH", path, 200, body);
      if (res.example_ids.length !== SIZE) {
        throw new Error(`PATCH updated ${res.example_ids.length} examples, not ${SIZE}`);
      }
    };
    const viaApi: Operation = { name: "PATCH", prepare: patchBody, run: patchVia(api), pids };
    let eventText = "";
    const floor: Operation = {
      name: "event+update",
      prepare() {
        const flag = flip();
        eventText = patchEventText(
          datasetUuid,
          JSON.stringify(uuids.map((id) => ({ id, fields: { flag } }))),
        );
      },
      async run() {
        const { updated } = await appendAndUpdate(
          pool,
          `bench_floor-${datasetUuid}`,
          datasetUuid,
          eventText,
        );
        if (updated !== SIZE) throw new Error(`the update changed ${updated} rows`);
      },
      pids: {},
    };
    // The shape's own floors, for the PATCH only: its front and back beside the stack, each
    // floor under a path of its own on the front.
    const twoHop = subject === "api" ? await spawnTwoHop(databaseUrl, onStop, natsUrl) : undefined;
    const viaTwoHop = (port: number, name: string, path: string, pids: Operation["pids"]) => ({
      name,
      prepare: patchBody,
      run: patchVia(new Api({ ...stack, baseUrl: `http://127.0.0.1:${port}${path}` })),
      pids,
    });
    const audited = twoHop && {
      ...twoHop.pids,
      ...(twoHop.auditPid !== undefined && { audit: twoHop.auditPid }),
    };
    const twoHopFloors: Operation[] | undefined = twoHop &&
      audited && [
        viaTwoHop(twoHop.port, "two-hop", "", twoHop.pids),
        // The same, with each PATCH's audit entry written after its answer, as the stack's are.
        viaTwoHop(twoHop.port, "two-hop+audit", "/audited", audited),
        // That, with the stack's own append and projection in place of the floor's statement.
        viaTwoHop(twoHop.port, "two-hop+audit+projection", "/projected", audited),
      ];
    return {
      kind: "operations",
      name:
        subject === "api"
          ? `${SIZE}-example in-place update: PATCH …/examples vs one UPDATE … FROM unnest`
          : `${SIZE}-example in-place update: event append + projection upsert vs one UPDATE`,
      subject: subject === "api" ? viaApi : floor,
      // The PATCH is judged against every floor in the same rounds too (S2's "blocked" numbers).
      ...(twoHopFloors && { floors: [floor, ...twoHopFloors] }),
      baseline: {
        name: "UPDATE",
        prepare() {
          const patch = JSON.stringify({ flag: flip() });
          patches = uuids.map(() => patch);
        },
        async run() {
          // Unnamed, unlike the floors' statements (`baseline/prepared.ts`): planned for each
          // call's arrays, it knows they hold 1000 ids; a prepared statement's generic plan does
          // not, and ran 1.20x slower ("Measured 2026-12-02 afternoon"). The baseline is the
          // fastest form of the statement.
          const res = await pool.query(
            `update dataset.examples e set fields = e.fields || x.patch
               from unnest($1::uuid[], $2::jsonb[]) as x(id, patch)
              where e.version_id = $3 and e.id = x.id`,
            [uuids, patches, dataset.versionUuid],
          );
          if (res.rowCount !== SIZE) throw new Error(`UPDATE changed ${res.rowCount} rows`);
        },
        pids: {},
      },
      stop,
    };
  });
}

/**
 * A new dataset of the default space as every PATCH benchmark and tool patches it: 1000
 * examples of three short fields (`flag` the one they set), with their public ids in order.
 */
export async function patchedDataset(
  api: Api,
  name: string,
): Promise<{ dataset: CreatedDataset; ids: string[] }> {
  const examples = Array.from({ length: SIZE }, (_, n) => ({
    input: `question ${n}`,
    output: `answer ${n}`,
    flag: "b",
  }));
  const spaceId = await api.defaultSpaceId();
  const dataset = await createDataset(api, spaceId, `${name}-${Date.now()}`, examples);
  return { dataset, ids: await exampleIds(api, dataset.id) };
}

/** Every example id of a dataset through the API, in order. */
export async function exampleIds(api: Api, datasetId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.call<ExamplesPage>("GET", examplesPath(datasetId, 500, cursor), 200);
    ids.push(...page.examples.map((e) => e.id));
    cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
  } while (cursor !== undefined);
  if (ids.length !== SIZE) throw new Error(`the dataset holds ${ids.length} examples`);
  return ids;
}
