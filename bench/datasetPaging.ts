import { performance } from "node:perf_hooks";
import pg from "pg";
import type { Benchmark } from "./benchmark.ts";
import { Api, createDataset, exampleFields, examplesPath, type ExamplesPage } from "./datasets.ts";
import { withBenchStack } from "./stack.ts";

const TOTAL = 1_000_000;
/** Examples created through the API; the rest are seeded in Postgres. */
const CREATED = 10;
const LIMIT = 50;
/** The largest page, to walk to the end in TOTAL / 500 requests. */
const WALK_LIMIT = 500;

/**
 * Whether the last page of a big dataset costs what the first does (issue "Dataset service":
 * keyset pages): GET /v2/datasets/{id}/examples?limit=50 with a cursor at the last 50 of
 * 1 000 000 examples versus the first page, same dataset, same limit, one stack.
 *
 * The dataset is created through the API with a few examples; the other 999 990 are one
 * set-based insert into `dataset.examples` of its version, as the service's projection writes
 * them (same dataset and version, uuid v7-like ids after the created ones, `fields` of the same
 * shape), then `vacuum analyze` (what autovacuum does after a million inserts, now rather than
 * in the middle of the measurement). The cursor is the API's own: the runner pages through the
 * whole dataset with limit=500 (~2 000 requests).
 */
export async function datasetPagingBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const created = Array.from({ length: CREATED }, (_, i) => exampleFields(i + 1));
    const dataset = await createDataset(api, spaceId, `paging-${Date.now()}`, created);

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    onStop(() => pool.end());
    let t0 = performance.now();
    await seedExamples(pool, dataset.uuid, dataset.versionUuid, CREATED + 1, TOTAL);
    const seedS = (performance.now() - t0) / 1000;

    t0 = performance.now();
    const { cursor, requests } = await cursorBeforeLast(api, dataset.id, LIMIT);
    const walkS = (performance.now() - t0) / 1000;
    console.info(
      `dataset-paging: seeded ${TOTAL - CREATED} examples in ${seedS.toFixed(1)} s (vacuum analyze included); ` +
        `walked to the last page in ${requests} requests, ${walkS.toFixed(1)} s`,
    );

    const pids = { gateway: stack.processes.gateway!.pid, dataset: stack.processes.dataset!.pid };
    const last = {
      name: "last page",
      url: stack.baseUrl + examplesPath(dataset.id, LIMIT, cursor),
    };
    const first = { name: "first page", url: stack.baseUrl + examplesPath(dataset.id, LIMIT) };
    // The pages are the ones meant: n = TOTAL-49..TOTAL and nothing after, and n = 1..50.
    await expectPage(api, last.url, TOTAL - LIMIT + 1, false);
    await expectPage(api, first.url, 1, true);
    return {
      name: `GET /v2/datasets/{id}/examples?limit=${LIMIT}: the last page of ${TOTAL} examples vs the first`,
      subject: { ...last, headers: api.headers, pids },
      baseline: { ...first, headers: api.headers, pids },
      stop,
    };
  });
}

/**
 * Examples `from`..`to` of a version in one statement: ids after every existing one of the
 * version (its largest id's millisecond plus one, then a counter), fields as `exampleFields`.
 */
async function seedExamples(
  pool: pg.Pool,
  datasetId: string,
  versionId: string,
  from: number,
  to: number,
): Promise<void> {
  const newest = await pool.query<{ id: string }>(
    "select id from dataset.examples where version_id = $1 order by id desc limit 1",
    [versionId],
  );
  const last = newest.rows[0]?.id ?? "00000000-0000-7000-8000-000000000000";
  // uuid v7: 48 bits of Unix milliseconds first; ours are one millisecond after the newest.
  const millis = parseInt(last.replace(/-/g, "").slice(0, 12), 16) + 1;
  const prefix = millis.toString(16).padStart(12, "0");
  const inserted = await pool.query(
    `insert into dataset.examples (version_id, id, dataset_id, fields, created_at, updated_at)
     select $1::uuid, ($3::text || '70008000' || lpad(to_hex(i), 12, '0'))::uuid, $2::uuid,
            jsonb_build_object('input', 'question ' || lpad(i::text, 7, '0'),
                               'output', 'answer ' || lpad(i::text, 7, '0'), 'n', i),
            now(), now()
       from generate_series($4::int, $5::int) as i`,
    [versionId, datasetId, prefix, from, to],
  );
  if (inserted.rowCount !== to - from + 1) {
    throw new Error(`seeded ${inserted.rowCount} examples, not ${to - from + 1}`);
  }
  // What autovacuum does after a million inserts, done now rather than during the measurement.
  await pool.query("vacuum analyze dataset.examples");
  // And the seed's dirty pages written out now, not by a checkpoint during the first rounds.
  await pool.query("checkpoint");
}

/**
 * The API's cursor to the last `limit` examples: pages of 500 from the start, then one page that
 * stops `limit` before the end. Counts every example on the way.
 */
async function cursorBeforeLast(
  api: Api,
  datasetId: string,
  limit: number,
): Promise<{ cursor: string; requests: number }> {
  let seen = 0;
  let requests = 0;
  let cursor: string | undefined;
  while (seen < TOTAL - limit) {
    const size = Math.min(WALK_LIMIT, TOTAL - limit - seen);
    const page = await api.call<ExamplesPage>("GET", examplesPath(datasetId, size, cursor), 200);
    requests++;
    seen += page.examples.length;
    cursor = page.pagination.next_cursor;
    if (page.examples.length === 0 || !page.pagination.has_more || cursor === undefined) {
      throw new Error(`the examples ended after ${seen} of ${TOTAL}`);
    }
  }
  return { cursor: cursor!, requests };
}

async function expectPage(api: Api, url: string, firstN: number, hasMore: boolean) {
  const page = await api.call<ExamplesPage>("GET", url.slice(api.stack.baseUrl.length), 200);
  const ns = page.examples.map((e) => e.n);
  const want = Array.from({ length: LIMIT }, (_, i) => firstN + i);
  if (JSON.stringify(ns) !== JSON.stringify(want) || page.pagination.has_more !== hasMore) {
    throw new Error(
      `${url}: examples n=${ns[0]}..${ns.at(-1)} (${ns.length}), has_more ${page.pagination.has_more}; ` +
        `meant ${firstN}..${firstN + LIMIT - 1}, has_more ${hasMore}`,
    );
  }
}
