import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@argus/contracts";
import { NOBODY, callClientStream, callServerStream, encodeId, uuidv7 } from "@argus/platform";
import {
  ColumnKind,
  DatasetBulkServiceService as B,
  type Column,
  type ExportMessage,
  type ImportDatasetMessage,
  type ImportRunsMessage,
  type ImportedRun,
  type TextColumn,
} from "@argus/proto/dataset/v1/bulk";
import { DatasetServiceService as S } from "@argus/proto/dataset/v1/dataset";
import { startedForFile, uniqueName } from "@argus/testkit";
import { fieldKinds, jsonKind } from "../src/bulk/columns.ts";
import { sweepImports } from "../src/bulk/staging.ts";
import { allExamples, problemOf, startDatasetUnderTest } from "./datasetUnderTest.ts";

const t = startedForFile(() => startDatasetUnderTest());
let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
});
afterAll(async () => {
  await pool?.end();
});

const opts = () => ({ credential: t.credential(), requestId: "bulk-test" });
/** The ExportExamples stream of a dataset's version (default: its latest). */
const exportExamples = (datasetId: string, versionId = "") =>
  callServerStream(t.channel, B.exportExamples, { datasetId, versionId }, opts());
const S_KIND = ColumnKind.COLUMN_KIND_STRING;
const I_KIND = ColumnKind.COLUMN_KIND_INTEGER;

type DatasetPart = NonNullable<ImportDatasetMessage["part"]>;
const dpart = (part: DatasetPart): ImportDatasetMessage => ({ part });

/** Sends an upload: its start, its rows in messages, then (unless told not to) its end. */
async function importDataset(
  name: string,
  messages: string[][],
  o: {
    columns?: Column[];
    end?: "count" | "none" | number;
    cancelAfter?: number;
  } = {},
) {
  const call = callClientStream(t.channel, B.importDataset, opts());
  await call.send(
    dpart({
      $case: "start",
      value: {
        spaceId: t.spaceId,
        name,
        columns: o.columns ?? [
          { name: "q", kinds: S_KIND },
          { name: "n", kinds: I_KIND },
        ],
      },
    }),
  );
  let count = 0;
  for (const [i, rows] of messages.entries()) {
    if (o.cancelAfter === i) {
      call.cancel();
      return call.finish();
    }
    await call.send(dpart({ $case: "rows", value: { fieldsJson: rows } }));
    count += rows.length;
  }
  const end = o.end ?? "count";
  if (end !== "none")
    await call.send(
      dpart({ $case: "end", value: { rowCount: BigInt(end === "count" ? count : end) } }),
    );
  return call.finish();
}

const rowsOf = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ q: `question ${from + i}`, n: from + i }));

/** A download as its header and each row's values as text (null for none). */
async function download(stream: AsyncGenerator<ExportMessage>): Promise<{
  header: { spaceId: string; versionId: string; columns: Column[] };
  rows: (string | null)[][];
  batches: number;
}> {
  let header: { spaceId: string; versionId: string; columns: Column[] } | undefined;
  const rows: (string | null)[][] = [];
  let batches = 0;
  for await (const m of stream) {
    if (m.part?.$case === "header") header = m.part.value;
    else if (m.part?.$case === "batch") {
      batches++;
      const { rowCount, columns } = m.part.value;
      const texts = columns.map((c) => textsOf(c, rowCount));
      for (let r = 0; r < rowCount; r++) rows.push(texts.map((c) => c[r]!));
    }
  }
  return { header: header!, rows, batches };
}

function textsOf(c: TextColumn, rows: number): (string | null)[] {
  const data = Buffer.from(c.data);
  const offsets = new DataView(c.offsets.buffer, c.offsets.byteOffset, c.offsets.byteLength);
  return Array.from({ length: rows }, (_, i) =>
    c.validity.length > 0 && (c.validity[i >> 3]! & (1 << (i & 7))) === 0
      ? null
      : data.toString("utf8", offsets.getInt32(i * 4, true), offsets.getInt32((i + 1) * 4, true)),
  );
}

async function eventsOf(streamSuffix: string): Promise<string[]> {
  const res = await pool.query<{ type: string }>(
    "select event_type as type from events where stream_id like $1 order by global_position",
    [`%${streamSuffix}`],
  );
  return res.rows.map((r) => r.type);
}

const openImports = async () =>
  (
    await pool.query<{ n: number }>(
      "select count(*)::int as n from imports where committed_at is null",
    )
  ).rows[0]!.n;

async function datasetNamed(name: string) {
  const res = await t.call(S.listDatasets, {
    page: { limit: 10, after: "" },
    spaceId: t.spaceId,
    spaceName: "",
    name,
  });
  return res.datasets.filter((d) => d.name === name);
}

describe("ImportDataset", () => {
  it("makes the upload one dataset in one event at its end, examples in upload order", async () => {
    const name = uniqueName("bulk");
    const res = await importDataset(name, [rowsOf(0, 1000), rowsOf(1000, 1500), rowsOf(2500, 7)]);
    expect(res.exampleCount).toBe(2507n);
    const id = res.dataset!.id;
    expect(await eventsOf(id)).toEqual([
      "DatasetCreated",
      "DatasetVersionCreated",
      "DatasetExamplesImported",
    ]);
    const examples = await allExamples(t, id);
    expect(examples.map((e) => e.fields)).toEqual(
      Array.from({ length: 2507 }, (_, i) => ({ q: `question ${i}`, n: i })),
    );
    // Ids are assigned in upload order, so the list (id order) is the upload's order.
    expect([...examples.map((e) => e.id)].sort()).toEqual(examples.map((e) => e.id));
    expect(new Set(examples.map((e) => e.id)).size).toBe(2507);
    const dataset = await t.call(S.getDataset, { id });
    expect(dataset.versions.map((v) => v.id)).toEqual([res.versionId]);
    expect(await openImports()).toBe(0);
  });

  it("a stream cut before its end (or ended without it, or miscounted) leaves nothing", async () => {
    const before = await openImports();
    for (const o of [{ cancelAfter: 2 }, { end: "none" as const }, { end: 11 }]) {
      const name = uniqueName("cut");
      const err = await problemOf(
        importDataset(name, [rowsOf(0, 5), rowsOf(5, 5), rowsOf(10, 5)], o),
      );
      expect(err).not.toBe("ok");
      expect(await datasetNamed(name)).toEqual([]);
      const events = await pool.query("select 1 from events where data->>'name' = $1", [name]);
      expect(events.rowCount).toBe(0);
    }
    // The service drops a failed upload's staging itself; a cancelled one as soon as it sees
    // the cancellation.
    await expect.poll(openImports, { timeout: 5_000 }).toBe(before);
    const chunks = await pool.query(
      "select 1 from import_chunks c join imports i on i.id = c.import_id where i.committed_at is null",
    );
    expect(chunks.rowCount).toBe(0);
    // And the same upload, sent again whole, goes through.
    const name = uniqueName("retried");
    const res = await importDataset(name, [rowsOf(0, 5), rowsOf(5, 5), rowsOf(10, 5)]);
    expect(res.exampleCount).toBe(15n);
  });

  it("refuses before any row: a name taken, a bad name, system columns, no DATASET_CREATE", async () => {
    const taken = uniqueName("taken");
    await importDataset(taken, [rowsOf(0, 1)]);
    expect(await problemOf(importDataset(taken, [rowsOf(0, 1)]))).toBe("resource-conflict");
    expect(await problemOf(importDataset(" ", [rowsOf(0, 1)]))).toBe("invalid-request");
    expect(
      await problemOf(importDataset("n".repeat(LIMITS.DATASET_NAME_MAX + 1), [rowsOf(0, 1)])),
    ).toBe("invalid-request");
    for (const system of ["id", "created_at", "updated_at", "annotations"])
      expect(
        await problemOf(
          importDataset(uniqueName("sys"), [rowsOf(0, 1)], {
            columns: [{ name: system, kinds: 1 }],
          }),
        ),
      ).toBe("validation-error");
    const nobody = {
      ...NOBODY,
      accountId: t.admin.accountId,
      userId: uuidv7(),
      apiKeyId: uuidv7(),
    };
    const call = callClientStream(t.channel, B.importDataset, {
      credential: t.credential(nobody),
      requestId: "nobody",
    });
    await call
      .send(
        dpart({
          $case: "start",
          value: { spaceId: t.spaceId, name: uniqueName("x"), columns: [] },
        }),
      )
      .catch(() => undefined);
    expect(await problemOf(call.finish())).toMatch(/resource-not-found|access-forbidden/);
  });

  it("row rules: a row of no value, and the example size at its edge", async () => {
    expect(await problemOf(importDataset(uniqueName("empty"), [["{}"]]))).toBe("validation-error");
    expect(await problemOf(importDataset(uniqueName("none"), []))).toBe("validation-error");
    const overhead = '{"q":""}'.length;
    const fits = JSON.stringify({ q: "x".repeat(LIMITS.EXAMPLE_MAX_BYTES - overhead) });
    const over = JSON.stringify({ q: "x".repeat(LIMITS.EXAMPLE_MAX_BYTES - overhead + 1) });
    expect(Buffer.byteLength(fits)).toBe(LIMITS.EXAMPLE_MAX_BYTES);
    expect(await problemOf(importDataset(uniqueName("fits"), [[fits]]))).toBe("ok");
    expect(await problemOf(importDataset(uniqueName("over"), [[over]]))).toBe("payload-too-large");
  });
});

describe("ExportExamples", () => {
  it("sends a version's examples in id order, as the list reads them, with the catalog's columns", async () => {
    const w = await t.call(S.createDataset, {
      spaceId: t.spaceId,
      name: uniqueName("rest"),
      examples: [
        { id: "", fieldsJson: JSON.stringify({ q: "a", n: 1, meta: { k: [1, 2] } }) },
        { id: "", fieldsJson: JSON.stringify({ q: "b", flag: true, score: 0.5 }) },
      ],
    });
    const id = w.dataset!.id;
    // A new version changing one example: the export reads through to the parent.
    const v2 = await t.call(S.updateExamples, {
      datasetId: id,
      versionId: "",
      newVersion: "v2",
      examples: [{ id: w.exampleIds[1]!, fieldsJson: JSON.stringify({ q: "B", extra: "x" }) }],
    });
    for (const versionId of [w.versionId, v2.versionId]) {
      const got = await download(exportExamples(id, versionId));
      expect(got.header.spaceId).toBe(t.spaceId);
      expect(got.header.versionId).toBe(versionId);
      const names = got.header.columns.map((c) => c.name);
      expect(names.slice(0, 3)).toEqual(["id", "created_at", "updated_at"]);
      const listed = await allExamples(t, id, versionId);
      expect(got.rows.map((r) => r[0])).toEqual(
        listed.map((e) => encodeId("DatasetExample", e.id)),
      );
      // Each field as text: a string as itself, anything else as its JSON.
      for (const [i, e] of listed.entries())
        for (const [c, name] of names.entries()) {
          if (c < 3) continue;
          const v = e.fields[name];
          const text = got.rows[i]![c]!;
          if (v === undefined) expect(text).toBeNull();
          else if (typeof v === "string") expect(text).toBe(v);
          else expect(JSON.parse(text)).toEqual(v);
        }
    }
    const v2cols = (await download(exportExamples(id, v2.versionId))).header.columns;
    expect(Object.fromEntries(v2cols.map((c) => [c.name, c.kinds]))).toMatchObject({
      q: ColumnKind.COLUMN_KIND_STRING,
      n: ColumnKind.COLUMN_KIND_INTEGER,
      meta: ColumnKind.COLUMN_KIND_JSON,
      flag: ColumnKind.COLUMN_KIND_BOOL,
      score: ColumnKind.COLUMN_KIND_FLOAT,
      extra: ColumnKind.COLUMN_KIND_STRING,
    });
  });

  it("finds each value's kind as json_kind reads it from the event's JSON", async () => {
    const values: unknown[] = [
      ...["", "x", true, false, null, {}, [], { a: 1 }, [1, "a"]],
      ...[0, -0, 1, -1, 1.5, -2.25, 1e-7, 5e-324, 1e21, -1e21, 2 ** 53 + 1],
      // 18 digits are an integer; 19 (and what JSON.parse rounds up to 19) are not.
      ...(JSON.parse(
        "[123456789012345678, -123456789012345678, 999999999999999999, 1234567890123456789]",
      ) as number[]),
      ...[Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, 1e20],
    ];
    const { rows } = await pool.query<{ kind: number }>(
      "select json_kind(v) as kind from jsonb_array_elements($1::jsonb) with ordinality as e(v, n) order by n",
      [JSON.stringify(values)],
    );
    expect(values.map(jsonKind)).toEqual(rows.map((r) => r.kind));
    expect(
      JSON.parse(fieldKinds([{ fields: { a: 1, b: "x" } }, { fields: { a: 1.5 } }, {}])),
    ).toEqual([
      { key: "a", kind: ColumnKind.COLUMN_KIND_INTEGER | ColumnKind.COLUMN_KIND_FLOAT },
      { key: "b", kind: S_KIND },
    ]);
  });

  it("streams an import of 20 000 examples in bounded batches, times as epoch milliseconds", async () => {
    const messages = Array.from({ length: 20 }, (_, i) => rowsOf(i * 1000, 1000));
    const res = await importDataset(uniqueName("big"), messages);
    const got = await download(exportExamples(res.dataset!.id));
    expect(got.rows).toHaveLength(20_000);
    expect(got.batches).toBeGreaterThan(1);
    expect(got.rows.map((r) => Number(r[4]))).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(Number(got.rows[0]![1])).toBe(Date.parse(res.dataset!.createdAt));
  });

  it("a consumer that stops early leaves the service serving", async () => {
    const res = await importDataset(
      uniqueName("early"),
      Array.from({ length: 10 }, (_, i) => rowsOf(i * 1000, 1000)),
    );
    for await (const m of exportExamples(res.dataset!.id)) if (m.part?.$case === "batch") break;
    const again = await download(exportExamples(res.dataset!.id));
    expect(again.rows).toHaveLength(10_000);
  });

  it("an unknown dataset or version is not found", async () => {
    const none = "00000000-0000-7000-8000-000000000000";
    expect(await problemOf(download(exportExamples(none)))).toBe("resource-not-found");
  });
});

describe("experiments in bulk", () => {
  const runPart = (part: NonNullable<ImportRunsMessage["part"]>): ImportRunsMessage => ({ part });

  async function importRuns(
    datasetId: string,
    experimentName: string,
    messages: ImportedRun[][],
    columns: Column[],
  ) {
    const call = callClientStream(t.channel, B.importRuns, opts());
    await call.send(runPart({ $case: "start", value: { datasetId, experimentName, columns } }));
    let n = 0;
    for (const runs of messages) {
      await call.send(runPart({ $case: "rows", value: { runs } }));
      n += runs.length;
    }
    await call.send(runPart({ $case: "end", value: { rowCount: BigInt(n) } }));
    return call.finish();
  }

  it("an entry without runs, then 3000 runs in one event, exported as the list reads them", async () => {
    const ds = await importDataset(uniqueName("exp-ds"), [rowsOf(0, 1000), rowsOf(1000, 500)]);
    const datasetId = ds.dataset!.id;
    const examples = await allExamples(t, datasetId);
    const name = uniqueName("exp");
    const entry = await t.call(B.createExperimentEntry, { datasetId, name });
    expect(entry.datasetVersionId).toBe(ds.versionId);
    expect(await problemOf(t.call(B.createExperimentEntry, { datasetId, name }))).toBe(
      "resource-conflict",
    );
    const runs = (from: number, n: number): ImportedRun[] =>
      Array.from({ length: n }, (_, i) => ({
        exampleId: examples[(from + i) % examples.length]!.id,
        output: `out ${from + i}`,
        fieldsJson: JSON.stringify({ "eval.exact.score": (from + i) % 2 }),
      }));
    const res = await importRuns(
      datasetId,
      name,
      [runs(0, 1000), runs(1000, 2000)],
      [{ name: "eval.exact.score", kinds: I_KIND }],
    );
    expect(res.runCount).toBe(3000n);
    expect(await eventsOf(entry.id)).toEqual(["ExperimentCreated", "ExperimentRunsImported"]);
    const got = await download(
      callServerStream(t.channel, B.exportRuns, { experimentId: entry.id }, opts()),
    );
    expect(got.header.columns.map((c) => c.name)).toEqual([
      "id",
      "example_id",
      "output",
      "eval.exact.score",
    ]);
    expect(got.rows).toHaveLength(3000);
    expect(got.rows.map((r) => r[2])).toEqual(Array.from({ length: 3000 }, (_, i) => `out ${i}`));
    expect(got.rows.map((r) => r[1])).toEqual(
      Array.from({ length: 3000 }, (_, i) => encodeId("DatasetExample", examples[i % 1500]!.id)),
    );
    const listed = await t.call(S.listExperimentRuns, {
      experimentId: entry.id,
      page: { limit: 500, after: "" },
    });
    expect(got.rows.slice(0, 500).map((r) => r[0])).toEqual(
      listed.runs.map((r) => encodeId("ExperimentRun", r.id)),
    );
  });

  it("refuses runs naming no example of the version, a reserved column, an unknown experiment", async () => {
    const ds = await importDataset(uniqueName("exp-ds2"), [rowsOf(0, 3)]);
    const datasetId = ds.dataset!.id;
    const [example] = await allExamples(t, datasetId);
    const name = uniqueName("exp2");
    const entry = await t.call(B.createExperimentEntry, { datasetId, name });
    const stranger = "00000000-0000-7000-8000-000000000000";
    const ok = { exampleId: example!.id, output: "o", fieldsJson: "{}" };
    expect(
      await problemOf(importRuns(datasetId, name, [[ok, ok, { ...ok, exampleId: stranger }]], [])),
    ).toBe("validation-error");
    expect(await problemOf(importRuns(datasetId, name, [[{ ...ok, exampleId: "" }]], []))).toBe(
      "validation-error",
    );
    expect(
      await problemOf(importRuns(datasetId, name, [[ok]], [{ name: "id", kinds: S_KIND }])),
    ).toBe("validation-error");
    expect(await problemOf(importRuns(datasetId, uniqueName("none"), [[ok]], []))).toBe(
      "resource-not-found",
    );
    expect(await eventsOf(entry.id)).toEqual(["ExperimentCreated"]);
  });
});

describe("staging", () => {
  it("the sweep drops idle imports no event claimed, and never a claimed one", async () => {
    const res = await importDataset(uniqueName("claimed"), [rowsOf(0, 2)]);
    const { rows } = await pool.query<{ id: string }>(
      "insert into imports (id, kind, account_id, started_at, touched_at) values ($1, 'examples', $2, now() - interval '1 hour', now() - interval '1 hour') returning id",
      ["00000000-0000-7000-8000-0000000000aa", t.admin.accountId],
    );
    await pool.query("insert into import_chunks (import_id, seq, rows) values ($1, 0, '[]')", [
      rows[0]!.id,
    ]);
    await pool.query(
      "update imports set touched_at = now() - interval '1 hour' where committed_at is not null",
    );
    expect(await sweepImports(pool)).toBe(1);
    expect((await pool.query("select 1 from imports where id = $1", [rows[0]!.id])).rowCount).toBe(
      0,
    );
    // The committed import keeps its chunks: its event stands for them.
    expect((await allExamples(t, res.dataset!.id)).length).toBe(2);
    const kept = await pool.query(
      "select count(*)::int as n from import_chunks c join imports i on i.id = c.import_id where i.committed_at is not null",
    );
    expect(kept.rows[0].n).toBeGreaterThan(0);
  });
});
