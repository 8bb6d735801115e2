import pg from "pg";
import { describe, expect, it } from "vitest";
import { DatasetServiceService as S, type ExampleInput } from "@argus/proto/dataset/v1/dataset";
import {
  NOBODY,
  callUnary,
  createChannel,
  createLogger,
  uuidv7,
  type Principal,
} from "@argus/platform";
import { freePort, startedForFile, uniqueName } from "@argus/testkit";
import { startDataset } from "../src/index.ts";
import { allExamples, problemOf, startDatasetUnderTest } from "./datasetUnderTest.ts";

const t = startedForFile(() => startDatasetUnderTest());

const inputs = (
  n: number,
  f: (i: number) => object = (i) => ({ q: `question ${i}`, n: i }),
): ExampleInput[] =>
  Array.from({ length: n }, (_, i) => ({ id: "", fieldsJson: JSON.stringify(f(i)) }));

const create = (n = 3, name = uniqueName("ds")) =>
  t.call(S.createDataset, { spaceId: t.spaceId, name, examples: inputs(n) });

const all = (datasetId: string, versionId = "") => allExamples(t, datasetId, versionId);
/** Packed as the gateway packs them (`PackedExamples.fields`), or as gateways did before. */
const packedOf = (examples: readonly ExampleInput[], legacy = false) => {
  const ids = examples.map((e) => e.id).join(",");
  const texts = examples.map((e) => e.fieldsJson);
  return legacy
    ? { ids, fieldsJson: texts.join("\n"), fields: "" }
    : { ids, fieldsJson: "", fields: `[${texts.join(",")}]` };
};

describe("datasets", () => {
  it("creates with its first version and examples, in request order", async () => {
    const w = await create(3);
    expect(w.exampleIds).toHaveLength(3);
    const got = await t.call(S.getDataset, { id: w.dataset!.id });
    expect(got.versions.map((v) => v.id)).toEqual([w.versionId]);
    const examples = await all(w.dataset!.id);
    expect(examples.map((e) => e.id)).toEqual(w.exampleIds);
    expect(examples.map((e) => e.fields)).toEqual(
      [0, 1, 2].map((i) => ({ q: `question ${i}`, n: i })),
    );
  });

  it("refuses 0 and 1001 examples, {} and system fields; takes 1 and 1000", async () => {
    const name = () => uniqueName("edge");
    const createWith = (examples: ExampleInput[]) =>
      problemOf(t.call(S.createDataset, { spaceId: t.spaceId, name: name(), examples }));
    expect(await createWith([])).toBe("validation-error");
    expect(await createWith(inputs(1001))).toBe("validation-error");
    expect(await createWith(inputs(1))).toBe("ok");
    expect(await createWith(inputs(1000))).toBe("ok");
    expect(await createWith(inputs(1, () => ({})))).toBe("validation-error");
    expect(await createWith(inputs(1, () => ({ a: 1, created_at: "x" })))).toBe("validation-error");
    expect(await createWith(inputs(1, () => ({ a: 1, updated_at: "x" })))).toBe("validation-error");
    expect(await createWith(inputs(1, () => ({ a: 1, id: "x" })))).toBe("validation-error");
  });

  it("a name is unique in its space: the second create is a 409", async () => {
    const name = uniqueName("twice");
    await create(1, name);
    expect(await problemOf(create(1, name))).toBe("resource-conflict");
  });

  it("pages a version's examples by keyset, each once, in order", async () => {
    const w = await create(1000);
    const seen: string[] = [];
    let after = "";
    do {
      const page = await t.call(S.listExamples, {
        datasetId: w.dataset!.id,
        versionId: "",
        page: { limit: 77, after },
      });
      expect(page.examples.length).toBeLessThanOrEqual(77);
      seen.push(...page.examples.map((e) => e.id));
      after = page.page?.nextAfter ?? "";
    } while (after !== "");
    expect(seen).toEqual(w.exampleIds);
  });
});

describe("example writes", () => {
  // As the gateway sends them (packed, one fields array), and as gateways did before (packed
  // one text each, or one message each).
  it.each(["packed", "legacy packed", "messages"])(
    "updates in place: fields merge, none removed, unknown ids ignored, repeats merged (%s)",
    async (form) => {
      const w = await create(2);
      const [a, b] = w.exampleIds;
      const examples = [
        { id: "00000000-0000-7000-8000-000000000000", fieldsJson: JSON.stringify({ q: "nobody" }) },
        { id: a!, fieldsJson: JSON.stringify({ q: "changed", extra: true }) },
        { id: "", fieldsJson: JSON.stringify({ q: "undecodable" }) },
        { id: a!, fieldsJson: JSON.stringify({ more: 1 }) },
      ];
      const res = await t.call(S.updateExamples, {
        datasetId: w.dataset!.id,
        versionId: "",
        newVersion: "",
        ...(form === "messages"
          ? { examples }
          : { examples: [], packedExamples: packedOf(examples, form === "legacy packed") }),
      });
      // The updated examples by their first position in the request, not by their ids again.
      expect([res.exampleIds, res.examplePositions]).toEqual([[], [1]]);
      expect(res.versionId).toBe(w.versionId);
      const after = await all(w.dataset!.id);
      expect(after.map((e) => e.id)).toEqual([a, b]);
      expect(after[0]!.fields).toEqual({ q: "changed", n: 0, extra: true, more: 1 });
      expect(after[1]!.fields).toEqual({ q: "question 1", n: 1 });
    },
  );

  it("refuses packed examples whose ids and fields differ in number, and 0 or 1001 of them", async () => {
    const w = await create(2);
    const update = (packed: { ids: string; fieldsJson?: string; fields?: string }) =>
      problemOf(
        t.call(S.updateExamples, {
          datasetId: w.dataset!.id,
          versionId: "",
          newVersion: "",
          examples: [],
          packedExamples: { fieldsJson: "", fields: "", ...packed },
        }),
      );
    const id = w.exampleIds[0]!;
    const one = (n: number) => Array.from({ length: n }, () => ({ id, fieldsJson: '{"q":1}' }));
    expect(await update({ ids: `${id},${id}`, fields: '[{"q":1}]' })).toBe("invalid-request");
    expect(await update({ ids: id, fields: '{"q":1}' })).toBe("invalid-request");
    expect(await update({ ids: id, fields: '[{"q":1}' })).toBe("invalid-request");
    expect(await update({ ids: "", fields: "[]" })).toBe("validation-error");
    expect(await update(packedOf(one(1001)))).toBe("validation-error");
    expect(await update(packedOf(one(1000)))).toBe("ok");
    expect((await all(w.dataset!.id))[0]!.fields).toMatchObject({ q: 1 });
    // As gateways packed them before: a raw line break in a fields text splits it in two,
    // never taken for two examples.
    expect(await update({ ids: id, fieldsJson: '{"q":\n1}' })).toBe("invalid-request");
    expect(await update({ ids: `${id},`, fieldsJson: '{"q":1}' })).toBe("invalid-request");
    expect(await update({ ids: "", fieldsJson: "" })).toBe("validation-error");
    expect(await update(packedOf(one(1001), true))).toBe("validation-error");
    expect(await update(packedOf([{ id, fieldsJson: '{"q":2}' }], true))).toBe("ok");
    expect((await all(w.dataset!.id))[0]!.fields).toMatchObject({ q: 2 });
  });

  it("a new version takes the update; the old one stays byte-identical; each lists its own", async () => {
    const w = await create(5);
    const before = await all(w.dataset!.id, w.versionId);
    const res = await t.call(S.updateExamples, {
      datasetId: w.dataset!.id,
      versionId: w.versionId,
      newVersion: "edited",
      examples: [{ id: w.exampleIds[2]!, fieldsJson: JSON.stringify({ q: "v2" }) }],
    });
    expect(res.versionId).not.toBe(w.versionId);
    expect(await all(w.dataset!.id, w.versionId)).toEqual(before);
    const v2 = await all(w.dataset!.id, res.versionId);
    expect(v2.map((e) => e.fields.q)).toEqual([
      "question 0",
      "question 1",
      "v2",
      "question 3",
      "question 4",
    ]);
    // The latest version is the default; versions list newest first.
    expect((await all(w.dataset!.id)).map((e) => e.fields.q)).toEqual(v2.map((e) => e.fields.q));
    const got = await t.call(S.getDataset, { id: w.dataset!.id });
    expect(got.versions.map((v) => v.name)).toEqual(["edited", "v1"]);
    // Changing the old version in place afterwards does not reach the new one.
    await t.call(S.updateExamples, {
      datasetId: w.dataset!.id,
      versionId: w.versionId,
      newVersion: "",
      examples: [{ id: w.exampleIds[0]!, fieldsJson: JSON.stringify({ q: "old changed" }) }],
    });
    await t.call(S.insertExamples, {
      datasetId: w.dataset!.id,
      versionId: w.versionId,
      examples: inputs(1, () => ({ q: "old only" })),
    });
    await t.call(S.deleteExamples, {
      datasetId: w.dataset!.id,
      versionId: w.versionId,
      exampleIds: [w.exampleIds[4]!],
    });
    expect(await all(w.dataset!.id, res.versionId)).toEqual(v2);
    const old = await all(w.dataset!.id, w.versionId);
    expect(old.map((e) => e.fields.q)).toEqual([
      "old changed",
      "question 1",
      "question 2",
      "question 3",
      "old only",
    ]);
    // A version name is unique in its dataset.
    expect(
      await problemOf(
        t.call(S.updateExamples, {
          datasetId: w.dataset!.id,
          versionId: "",
          newVersion: "edited",
          examples: [{ id: w.exampleIds[1]!, fieldsJson: "{}" }],
        }),
      ),
    ).toBe("resource-conflict");
  });

  it("an update of a dataset this replica wrote before goes ahead on what it knew, checked against what its lock reads", async () => {
    // A second replica on the same database changes the dataset behind this one's back.
    const other = await startDataset(
      {
        ...t.env,
        DATASET_GRPC_PORT: String(await freePort()),
        DATASET_PROBE_PORT: "0",
        ...t.keys.env("dataset"),
        IDENTITY_GRPC_URL: t.identityUrl,
      },
      createLogger({ service: "dataset-other", level: "warn" }),
    );
    const channel = createChannel(`127.0.0.1:${other.grpcPort}`);
    const viaOther = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[1], req: Req) =>
      callUnary(channel, method, req, { credential: t.credential(), requestId: "other" });
    try {
      const w = await create(3);
      const datasetId = w.dataset!.id;
      const [x, y, z] = w.exampleIds;
      const patch = (id: string, q: string, p?: Principal, newVersion = "") =>
        t.call(
          S.updateExamples,
          {
            datasetId,
            versionId: "",
            newVersion,
            examples: [],
            packedExamples: packedOf([{ id, fieldsJson: JSON.stringify({ q }) }]),
          },
          p,
        );
      // The first update reads the dataset under its lock; the next goes ahead on it.
      await patch(x!, "first");
      expect((await patch(y!, "ahead")).versionId).toBe(w.versionId);
      // Renamed by the other replica: the answer is the dataset as the lock read it.
      await viaOther(S.updateDataset, { id: datasetId, name: "renamed" });
      expect((await patch(y!, "after the rename")).dataset?.name).toBe("renamed");
      // A new version made there: this replica's latest is not the latest any more.
      const v2 = await viaOther(S.updateExamples, {
        datasetId,
        versionId: "",
        newVersion: "v2",
        examples: [{ id: z!, fieldsJson: JSON.stringify({ q: "in v2" }) }],
      });
      expect((await patch(x!, "after v2")).versionId).toBe(v2.versionId);
      expect((await all(datasetId, v2.versionId)).map((e) => e.fields.q)).toEqual([
        "after v2",
        "after the rename",
        "in v2",
      ]);
      expect((await all(datasetId, w.versionId)).map((e) => e.fields.q)).toEqual([
        "first",
        "after the rename",
        "question 2",
      ]);
      // Someone without rights on its space is refused as before, known or not.
      const nobody = {
        ...NOBODY,
        accountId: t.admin.accountId,
        userId: uuidv7(),
        apiKeyId: uuidv7(),
      };
      // (Not found: it may not even read the dataset.)
      expect(await problemOf(patch(x!, "nobody", nobody))).toBe("resource-not-found");
      expect((await all(datasetId))[0]!.fields.q).toBe("after v2");
      // Deleted there: not found here, and nothing written.
      await viaOther(S.deleteDataset, { id: datasetId });
      expect(await problemOf(patch(x!, "deleted"))).toBe("resource-not-found");
    } finally {
      channel.close();
      await other.stop();
    }
  });

  it("deletes what the version holds, reports the rest, and is idempotent", async () => {
    const w = await create(3);
    const ask = (ids: string[]) =>
      t.call(S.deleteExamples, {
        datasetId: w.dataset!.id,
        versionId: w.versionId,
        exampleIds: ids,
      });
    const ghost = "00000000-0000-7000-8000-000000000001";
    const first = await ask([w.exampleIds[0]!, ghost]);
    expect(first).toEqual({
      completed: true,
      deletedExampleIds: [w.exampleIds[0]],
      notDeletedExampleIds: [ghost],
    });
    const again = await ask([w.exampleIds[0]!]);
    expect(again).toEqual({
      completed: true,
      deletedExampleIds: [],
      notDeletedExampleIds: [w.exampleIds[0]],
    });
    expect((await all(w.dataset!.id)).map((e) => e.id)).toEqual(w.exampleIds.slice(1));
    expect(await problemOf(ask([]))).toBe("validation-error");
    expect(await problemOf(ask([ghost, ghost]))).toBe("validation-error");
    expect(
      await problemOf(
        t.call(S.deleteExamples, { datasetId: w.dataset!.id, versionId: "", exampleIds: [ghost] }),
      ),
    ).toBe("invalid-request");
  });

  it("concurrent writes to one version lose nothing and never fail", async () => {
    const w = await create(20);
    const outcomes = await Promise.all(
      w.exampleIds.map((id, i) =>
        problemOf(
          t.call(S.updateExamples, {
            datasetId: w.dataset!.id,
            versionId: w.versionId,
            newVersion: "",
            examples: [{ id, fieldsJson: JSON.stringify({ [`k${i}`]: i }) }],
          }),
        ),
      ),
    );
    expect(outcomes.every((o) => o === "ok")).toBe(true);
    const examples = await all(w.dataset!.id);
    examples.forEach((e, i) => expect(e.fields[`k${i}`]).toBe(i));
  });

  it("updates racing a delete of some of their examples all succeed, each event naming only what was held", async () => {
    const w = await create(20);
    const datasetId = w.dataset!.id;
    const ids = w.exampleIds;
    const [kept, doomed] = [ids.slice(0, 10), ids.slice(10)];
    const update = (i: number) =>
      problemOf(
        t.call(S.updateExamples, {
          datasetId,
          versionId: w.versionId,
          newVersion: "",
          examples: [kept[i]!, doomed[i]!].map((id) => ({ id, fieldsJson: `{"k${i}":${i}}` })),
        }),
      );
    const removal = problemOf(
      t.call(S.deleteExamples, { datasetId, versionId: w.versionId, exampleIds: doomed }),
    );
    const outcomes = await Promise.all([...kept.map((_, i) => update(i)), removal]);
    expect(outcomes.every((o) => o === "ok")).toBe(true);
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    try {
      const { rows } = await pool.query<{
        type: string;
        data: { examples?: { id: string }[]; example_ids?: string[] };
      }>(
        `select event_type as type, data from events where stream_id = $1 order by global_position`,
        [`dataset_examples-${datasetId}`],
      );
      // Replayed in order, every update names only examples its version held at that point.
      const held = new Set<string>();
      for (const { type, data } of rows) {
        if (type === "DatasetExamplesInserted") data.examples!.forEach((e) => held.add(e.id));
        if (type === "DatasetExamplesDeleted") data.example_ids!.forEach((id) => held.delete(id));
        if (type === "DatasetExamplesUpdated")
          for (const e of data.examples!) expect(held.has(e.id)).toBe(true);
      }
      expect(rows.filter((r) => r.type === "DatasetExamplesUpdated")).toHaveLength(10);
    } finally {
      await pool.end();
    }
    const examples = await all(datasetId);
    expect(examples.map((e) => e.id)).toEqual(kept);
    examples.forEach((e, i) => expect(e.fields[`k${i}`]).toBe(i));
  });

  it("an update naming examples its version does not hold appends one event naming only those it holds", async () => {
    const w = await create(3);
    const datasetId = w.dataset!.id;
    const [a, b, c] = w.exampleIds;
    await t.call(S.deleteExamples, { datasetId, versionId: w.versionId, exampleIds: [c!] });
    const other = await create(1);
    const update = (newVersion: string, examples: ExampleInput[]) =>
      t.call(S.updateExamples, { datasetId, versionId: "", newVersion, examples });
    const stray = (id: string, q: string) => ({ id, fieldsJson: JSON.stringify({ q, stray: 1 }) });
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    const events = async () =>
      (
        await pool.query<{ data: { version_id: string; examples: { id: string }[] } }>(
          `select data from events where stream_id = $1 and event_type = 'DatasetExamplesUpdated'
            order by global_position`,
          [`dataset_examples-${datasetId}`],
        )
      ).rows.map((r) => [r.data.version_id, r.data.examples.map((e) => e.id)]);
    const columns = async (versionId: string) =>
      (
        await pool.query<{ name: string }>(
          "select name from example_columns where version_id = $1 order by name",
          [versionId],
        )
      ).rows.map((r) => r.name);
    try {
      // Another dataset's example and a deleted one, around two that are held.
      const res = await update("", [
        stray(other.exampleIds[0]!, "of another dataset"),
        { id: b!, fieldsJson: JSON.stringify({ q: "b" }) },
        stray(c!, "deleted"),
        { id: a!, fieldsJson: JSON.stringify({ q: "a" }) },
      ]);
      expect(res.examplePositions).toEqual([1, 3]);
      expect(await events()).toEqual([[w.versionId, [b, a]]]);
      expect(await columns(w.versionId)).toEqual(["n", "q"]);
      expect((await all(datasetId)).map((e) => e.fields)).toEqual([
        { q: "a", n: 0 },
        { q: "b", n: 1 },
      ]);
      expect((await all(other.dataset!.id))[0]!.fields).toEqual({ q: "question 0", n: 0 });
      // Held by none: no event; into a new version: the version is made once, with one event.
      expect((await update("", [stray(c!, "deleted")])).examplePositions).toEqual([]);
      const next = await update("next", [stray(c!, "deleted"), stray(a!, "a2")]);
      expect(next.examplePositions).toEqual([1]);
      expect(await events()).toEqual([
        [w.versionId, [b, a]],
        [next.versionId, [a]],
      ]);
      const got = await t.call(S.getDataset, { id: datasetId });
      expect(got.versions.map((v) => v.name)).toEqual(["next", "v1"]);
      expect((await all(datasetId, next.versionId)).map((e) => e.fields.q)).toEqual(["a2", "b"]);
    } finally {
      await pool.end();
    }
  });

  it("a large write becomes several events that each fit a NATS message", async () => {
    const big = "x".repeat(300 * 1024);
    const w = await t.call(S.createDataset, {
      spaceId: t.spaceId,
      name: uniqueName("big"),
      examples: inputs(8, (i) => ({ i, big })),
    });
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    try {
      const { rows } = await pool.query<{ n: number; max: number }>(
        `select count(*)::int as n, max(octet_length(data::text))::int as max from events
          where stream_id = $1`,
        [`dataset_examples-${w.dataset!.id}`],
      );
      expect(rows[0]!.n).toBeGreaterThan(1);
      expect(rows[0]!.max).toBeLessThan(1024 * 1024);
    } finally {
      await pool.end();
    }
    expect((await all(w.dataset!.id)).map((e) => e.fields.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const tooBig = inputs(1, () => ({ big: "y".repeat(1024 * 1024) }));
    expect(
      await problemOf(
        t.call(S.insertExamples, { datasetId: w.dataset!.id, versionId: "", examples: tooBig }),
      ),
    ).toBe("payload-too-large");
  });

  it("deleting a dataset takes its versions and examples; it is then not found", async () => {
    const w = await create(2);
    await t.call(S.deleteDataset, { id: w.dataset!.id });
    expect(await problemOf(t.call(S.getDataset, { id: w.dataset!.id }))).toBe("resource-not-found");
    expect(
      await problemOf(
        t.call(S.insertExamples, { datasetId: w.dataset!.id, versionId: "", examples: inputs(1) }),
      ),
    ).toBe("resource-not-found");
    const pool = new pg.Pool({ connectionString: t.db.url, options: "-c search_path=dataset" });
    try {
      const { rows } = await pool.query("select 1 from examples where dataset_id = $1", [
        w.dataset!.id,
      ]);
      expect(rows).toHaveLength(0);
    } finally {
      await pool.end();
    }
  });
});

describe("search", () => {
  it("filters on fields, nested paths, dotted names and the public id; a bad filter is 400", async () => {
    const w = await t.call(S.createDataset, {
      spaceId: t.spaceId,
      name: uniqueName("search"),
      examples: inputs(4, (i) => ({
        input: `q${i}`,
        n: i,
        metadata: { topic: i % 2 ? "math" : "art" },
        "eval.score": i / 4,
      })),
    });
    const search = async (filter: string) =>
      (
        await t.call(S.searchExamples, {
          datasetId: w.dataset!.id,
          versionId: "",
          filter,
          page: { limit: 100, after: "" },
        })
      ).examples.map((e) => JSON.parse(e.fieldsJson).input as string);
    expect(await search("input = 'q2'")).toEqual(["q2"]);
    expect(await search("n >= 2 AND metadata.topic = 'math'")).toEqual(["q3"]);
    expect(await search("eval.score > 0.4")).toEqual(["q2", "q3"]);
    expect(await search("input IN ('q0', 'q3') OR n = 1")).toEqual(["q0", "q1", "q3"]);
    const publicId = Buffer.from(`DatasetExample:${w.exampleIds[1]}`).toString("base64");
    expect(await search(`id = '${publicId}'`)).toEqual(["q1"]);
    expect(await problemOf(search("input = "))).toBe("invalid-request");
    expect(await problemOf(search("nosuch.field = 1"))).toBe("ok");
  });
});
