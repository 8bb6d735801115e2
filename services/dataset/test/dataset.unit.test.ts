import { describe, expect, it } from "vitest";
import { unpackExamples, type DatasetEvent, type DatasetExamplesEvent } from "@argus/contracts";
import {
  BULK_DATA_CHARS,
  bulkDataJson,
  chunkBySize,
  cutToIds,
  jsonTextOf,
} from "@argus/eventstore";
import { problem, scenario } from "@argus/eventstore/testing";
import { datasetDecider, type DatasetCommand } from "../src/datasets/datasetDecider.ts";
import { mergeRepeats, updateBatchOf } from "../src/examples/exampleCommands.ts";
import { runEvents } from "../src/experiments/experimentCommands.ts";
import { parseRuns } from "../src/experiments/experimentRunRules.ts";
import {
  EVENT_EXAMPLE_BYTES,
  insertedEvents,
  updateBatch,
  updatedEvents,
} from "../src/examples/exampleEvents.ts";
import {
  EXAMPLE_MAX_BYTES,
  parseExamples,
  parseFieldsArray,
  requireDeletableIds,
} from "../src/examples/exampleRules.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const at = now.toISOString();
const create = (name: string): DatasetCommand => ({
  type: "CreateDataset",
  id: "d1",
  accountId: "a1",
  spaceId: "s1",
  name,
  firstVersion: { id: "v1", name: "v1" },
  now,
});
const version = (id: string, name: string): DatasetCommand => ({
  type: "CreateVersion",
  id,
  name,
  parentId: "v1",
  now,
});
const del: DatasetCommand = { type: "DeleteDataset", now };

const { given, history } = scenario(datasetDecider);
const examplesOf = (e: DatasetExamplesEvent) => ("examples" in e.data ? e.data.examples : []);
const nothing: DatasetEvent[] = [];
const created = history(create("golden"));

describe("dataset decider", () => {
  it("creates a dataset with its first version", () => {
    expect(created).toEqual([
      {
        type: "DatasetCreated",
        data: { id: "d1", account_id: "a1", space_id: "s1", name: "golden", created_at: at },
      },
      {
        type: "DatasetVersionCreated",
        data: {
          id: "v1",
          dataset_id: "d1",
          space_id: "s1",
          name: "v1",
          parent_version_id: null,
          created_at: at,
        },
      },
    ]);
  });

  it("names: 255 characters pass, 256 and blank are 400", () => {
    expect(problem(() => given(nothing).when(create("a".repeat(255))))).toBe("none");
    expect(problem(() => given(nothing).when(create("a".repeat(256))))).toBe("invalid-request");
    expect(problem(() => given(nothing).when(create(" \t")))).toBe("invalid-request");
    expect(problem(() => given(created).when(version("v2", "b".repeat(256))))).toBe(
      "invalid-request",
    );
  });

  it("a deleted or missing dataset is 404 for every change; a second create is 409", () => {
    const deleted = [...created, ...given(created).when(del)];
    for (const h of [nothing, deleted]) {
      expect(problem(() => given(h).when(del))).toBe("resource-not-found");
      expect(problem(() => given(h).when(version("v2", "x")))).toBe("resource-not-found");
      expect(problem(() => given(h).when({ type: "RenameDataset", name: "x", now }))).toBe(
        "resource-not-found",
      );
    }
    expect(problem(() => given(created).when(create("again")))).toBe("resource-conflict");
  });
});

const inputs = (...objects: unknown[]) =>
  objects.map((o) => ({ id: "", fieldsJson: JSON.stringify(o) }));

describe("example rules", () => {
  it("1 and 1000 examples pass; 0 and 1001 are 422", () => {
    expect(problem(() => parseExamples(inputs({ a: 1 }), "insert"))).toBe("none");
    const many = Array.from({ length: 1000 }, (_, i) => ({ i }));
    expect(problem(() => parseExamples(inputs(...many), "insert"))).toBe("none");
    expect(problem(() => parseExamples([], "insert"))).toBe("validation-error");
    expect(problem(() => parseExamples(inputs(...many, { i: 1000 }), "insert"))).toBe(
      "validation-error",
    );
  });

  it("system fields are refused; an insert needs a field and no id; an update's {} is a no-op", () => {
    for (const bad of [
      { a: 1, created_at: "x" },
      { a: 1, updated_at: null },
    ]) {
      expect(problem(() => parseExamples(inputs(bad), "insert"))).toBe("validation-error");
      expect(problem(() => parseExamples(inputs(bad), "update"))).toBe("validation-error");
    }
    expect(problem(() => parseExamples(inputs({}), "insert"))).toBe("validation-error");
    expect(problem(() => parseExamples(inputs({ id: "x", a: 1 }), "insert"))).toBe(
      "validation-error",
    );
    expect(problem(() => parseExamples(inputs({}), "update"))).toBe("none");
    for (const notObject of [[1], "s", 3, null])
      expect(problem(() => parseExamples(inputs(notObject), "insert"))).toBe("validation-error");
  });

  it("an example larger than one event holds is 413", () => {
    const fits = { s: "x".repeat(EXAMPLE_MAX_BYTES - 10) };
    const over = { s: "x".repeat(EXAMPLE_MAX_BYTES) };
    expect(problem(() => parseExamples(inputs(fits), "insert"))).toBe("none");
    expect(problem(() => parseExamples(inputs(over), "insert"))).toBe("payload-too-large");
    expect(EXAMPLE_MAX_BYTES).toBeLessThan(EVENT_EXAMPLE_BYTES);
  });

  it("chunks keep order, stay within the budget, and never come out empty", () => {
    const sizes = [5, 5, 5, 9, 1, 10, 3];
    const chunks = chunkBySize(sizes, (s) => s, 10);
    expect(chunks).toEqual([[5, 5], [5], [9, 1], [10], [3]]);
    expect(chunkBySize([], (s: number) => s, 10)).toEqual([]);
    expect(chunkBySize([20], (s) => s, 10)).toEqual([[20]]);
  });

  it("delete ids: 1 to 1000, none empty, none twice", () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id${i}`);
    expect(problem(() => requireDeletableIds(ids(1)))).toBe("none");
    expect(problem(() => requireDeletableIds(ids(1000)))).toBe("none");
    expect(problem(() => requireDeletableIds(ids(0)))).toBe("validation-error");
    expect(problem(() => requireDeletableIds(ids(1001)))).toBe("validation-error");
    expect(problem(() => requireDeletableIds(["a", ""]))).toBe("validation-error");
    expect(problem(() => requireDeletableIds(["a", "b", "a"]))).toBe("validation-error");
  });

  it("an id repeated in one update merges in request order at its first place", () => {
    const example = (id: string, fields: Record<string, number>, at: number) => ({
      id,
      fields,
      at,
    });
    const merged = mergeRepeats([
      example("a", { x: 1, y: 1 }, 0),
      example("b", { z: 1 }, 1),
      example("a", { y: 2 }, 2),
    ]);
    expect(merged).toEqual([example("a", { x: 1, y: 2 }, 0), example("b", { z: 1 }, 1)]);
    // No repeat: the examples themselves, in ascending order or not.
    const ascending = [example("a", {}, 0), example("b", {}, 1), example("c", {}, 2)];
    expect(mergeRepeats(ascending)).toBe(ascending);
    const unordered = [example("b", {}, 0), example("a", {}, 1), example("c", {}, 2)];
    expect(mergeRepeats(unordered)).toBe(unordered);
    expect(mergeRepeats([])).toEqual([]);
  });

  it("unpacks a gateway's earlier packing (fields joined by line breaks) as it was", () => {
    const packed = { ids: "a,,c", fieldsJson: '{}\n{"q":"x,y"}\n{"n":[1,2]}', fields: "" };
    expect(unpackExamples(packed)).toEqual([
      { id: "a", fieldsJson: "{}" },
      { id: "", fieldsJson: '{"q":"x,y"}' },
      { id: "c", fieldsJson: '{"n":[1,2]}' },
    ]);
    expect(unpackExamples({ ids: "", fieldsJson: "", fields: "" })).toEqual([]);
    expect(unpackExamples({ ids: "a,b", fieldsJson: "{}", fields: "" })).toBeUndefined();
  });

  it("an update's fields array: 1 to 1000 objects, as many as its ids, no system fields", () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id${i}`).join(",");
    const fields = (n: number, f: unknown = { q: 1 }) => JSON.stringify(Array(n).fill(f));
    expect(parseFieldsArray("a,,c", '[{},{"q":"x,y"},{"n":[1,2]}]')).toEqual([
      { id: "a", fields: {}, at: 0 },
      { id: "", fields: { q: "x,y" }, at: 1 },
      { id: "c", fields: { n: [1, 2] }, at: 2 },
    ]);
    expect(problem(() => parseFieldsArray(ids(1), fields(1)))).toBe("none");
    expect(problem(() => parseFieldsArray(ids(1000), fields(1000)))).toBe("none");
    expect(problem(() => parseFieldsArray("", "[]"))).toBe("validation-error");
    expect(problem(() => parseFieldsArray(ids(1001), fields(1001)))).toBe("validation-error");
    for (const [idsText, text] of [
      [ids(2), fields(1)],
      [ids(1), fields(2)],
      [ids(1), "{}"],
      [ids(1), '[{"q":1}'],
      [ids(1), ""],
    ])
      expect(
        problem(() => parseFieldsArray(idsText!, text!)),
        text,
      ).toBe("invalid-request");
    for (const bad of [[1], "s", 3, null, { created_at: "x" }, { annotations: [] }])
      expect(
        problem(() => parseFieldsArray(ids(2), JSON.stringify([{}, bad]))),
        JSON.stringify(bad),
      ).toBe("validation-error");
    // An update may name `id` among its fields and set none.
    expect(problem(() => parseFieldsArray(ids(1), '[{"id":"x"}]'))).toBe("none");
  });

  it("an update's examples: repeats merged, ids that are no uuid left out, each within the size rule", () => {
    const [a, b] = ["00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"];
    const request = (ids: string[], fields: unknown[]) => ({
      datasetId: "d",
      versionId: "",
      newVersion: "",
      examples: [],
      packedExamples: { ids: ids.join(","), fieldsJson: "", fields: JSON.stringify(fields) },
    });
    const batch = updateBatchOf(
      request([a, "", "nope", b, a], [{ x: 1 }, {}, {}, { y: 1 }, { x: 2 }]),
    );
    expect(batch.examples).toEqual([
      { id: a, fields: { x: 2 }, at: 0 },
      { id: b, fields: { y: 1 }, at: 3 },
    ]);
    expect(JSON.parse(batch.text)).toEqual(batch.records);
    expect(batch.bytes).toBe(Buffer.byteLength(batch.text));
    // At the bound, one past it; alone, beside others, or named by an id that matches nothing.
    const sized = (n: number) => ({ s: "x".repeat(n - '{"s":""}'.length) });
    expect(Buffer.byteLength(JSON.stringify(sized(EXAMPLE_MAX_BYTES)))).toBe(EXAMPLE_MAX_BYTES);
    for (const [ids, over] of [
      [[a], 0],
      [[a, b], 1],
      [[a, "nope"], 1],
      [[b, a], 0],
    ] as const) {
      const fields = (n: number) => ids.map((_, i) => (i === over ? sized(n) : { q: i }));
      expect(problem(() => updateBatchOf(request([...ids], fields(EXAMPLE_MAX_BYTES))))).toBe(
        "none",
      );
      expect(problem(() => updateBatchOf(request([...ids], fields(EXAMPLE_MAX_BYTES + 1))))).toBe(
        "payload-too-large",
      );
    }
    // A gateway's earlier packing, and one message each, come out the same.
    const legacy = updateBatchOf({
      ...request([], []),
      packedExamples: { ids: `${a},${a}`, fieldsJson: '{"x":1}\n{"x":2}', fields: "" },
    });
    expect(legacy.examples).toEqual([{ id: a, fields: { x: 2 }, at: 0 }]);
    const messages = updateBatchOf({
      ...request([], []),
      packedExamples: undefined,
      examples: [{ id: b, fieldsJson: '{"y":1}' }],
    });
    expect(messages.examples).toMatchObject([{ id: b, fields: { y: 1 }, at: 0 }]);
    // The earlier packings' texts are measured as sent, once: `1e21` is written back as
    // `1e+21`, one byte longer, so an example at the bound as sent is one past it written back.
    const sent = `{"n":1e21,"s":"${"x".repeat(EXAMPLE_MAX_BYTES - '{"n":1e21,"s":""}'.length)}"}`;
    expect(Buffer.byteLength(sent)).toBe(EXAMPLE_MAX_BYTES);
    expect(Buffer.byteLength(JSON.stringify(JSON.parse(sent)))).toBe(EXAMPLE_MAX_BYTES + 1);
    const atBound = (fieldsJson: string) => () =>
      updateBatchOf({
        ...request([], []),
        packedExamples: undefined,
        examples: [{ id: a, fieldsJson }],
      });
    expect(problem(atBound(sent))).toBe("none");
    expect(problem(atBound(sent.replace('"s":"', '"s":"x')))).toBe("payload-too-large");
  });

  it("a bulk event stores the examples' own texts, and they read back as its data", () => {
    // Texts as a caller may send them: spacing, escapes, unicode, nesting, a repeated key.
    const texts = [
      '{ "q" : "a \\"quoted\\" line\\n", "n": 1.5e3 }',
      '{"nested":{"list":[1,"two",null,{"t":true}]},"emoji":"\\ud83d\\ude00 é"}',
      '{"k":1,"k":2}',
      ...Array.from({ length: 40 }, (_, i) => JSON.stringify({ big: "x".repeat(30_000), i })),
    ];
    const parsed = parseExamples(
      texts.map((fieldsJson) => ({ id: "", fieldsJson })),
      "insert",
    );
    const ids = texts.map((_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`);
    const target = { datasetId: "d", spaceId: "s", versionId: "v", now: new Date(0) };
    const events = insertedEvents(target, parsed, ids);
    expect(events.length).toBeGreaterThan(1); // 40 examples of 30 KB are more than one event
    for (const event of events) {
      const { parts, bytes, bus } = jsonTextOf(event.data);
      const text = parts.join("");
      expect(JSON.parse(text)).toEqual(event.data);
      expect(bytes).toBe(Buffer.byteLength(text));
      // Each is a bulk write (its 30 KB examples): on the bus, the audit log's cut of it.
      expect(bus).toBe(JSON.stringify(cutToIds(event.data)));
      expect(event.data).toMatchObject({ dataset_id: "d", space_id: "s", version_id: "v" });
    }
    const stored = events.flatMap(examplesOf);
    expect(stored.map((e) => e.id)).toEqual(ids);
    expect(stored.map((e) => e.fields)).toEqual(texts.map((t) => JSON.parse(t) as unknown));
    expect(jsonTextOf(events[0]!.data).parts).toContain(texts[0]);

    const updated = updatedEvents(
      target,
      updateBatch(
        mergeRepeats(
          parseExamples(
            [
              { id: ids[0]!, fieldsJson: texts[0]! },
              { id: ids[0]!, fieldsJson: '{"n":2}' },
            ],
            "update",
          ),
        ),
      ),
    );
    const merged = jsonTextOf(updated[0]!.data);
    const mergedText = merged.parts.join("");
    expect(JSON.parse(mergedText)).toEqual(updated[0]!.data);
    expect(merged.bytes).toBe(Buffer.byteLength(mergedText));
    expect(examplesOf(updated[0]!)[0]!.fields).toMatchObject({ n: 2, q: 'a "quoted" line\n' });
  });

  it("a bulk event goes on the bus as its examples' ids, the audit log's cut of it, and a small one whole", () => {
    const target = { datasetId: "d", spaceId: "s", versionId: "v", now: new Date(0) };
    const idOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const events = (n: number, field: string) =>
      updatedEvents(
        target,
        updateBatch(
          parseFieldsArray(
            Array.from({ length: n }, (_, i) => idOf(i)).join(","),
            JSON.stringify(Array.from({ length: n }, (_, i) => ({ f: field, user_id: i }))),
          ),
        ),
      );
    // Over the bound by its ids alone, by its fields.
    const probe = events(1, "");
    const oneEvent = BULK_DATA_CHARS - JSON.stringify(probe[0]!.data).length;
    for (const [n, field] of [
      [1000, ""],
      [3, "x".repeat(9000)],
    ] as const) {
      const [event] = events(n, field);
      const { bus } = jsonTextOf(event!.data);
      expect(bus, `${n} examples`).toBe(JSON.stringify(cutToIds(event!.data)));
      // The audit entry made from what the bus carries is the one made from the data.
      expect(JSON.parse(bulkDataJson(JSON.parse(bus!)))).toEqual(
        JSON.parse(bulkDataJson(event!.data)),
      );
      expect(JSON.parse(bus!)).toEqual({
        dataset_id: "d",
        space_id: "s",
        version_id: "v",
        at: new Date(0).toISOString(),
        examples: Array.from({ length: n }, (_, i) => ({ id: idOf(i) })),
      });
    }
    // Data at the bound goes whole; one character past it, cut, as the audit log cuts it.
    const [whole] = events(1, "x".repeat(oneEvent));
    expect(JSON.stringify(whole!.data).length).toBe(BULK_DATA_CHARS);
    expect(jsonTextOf(whole!.data).bus).toBeUndefined();
    const [past] = events(1, "x".repeat(oneEvent + 1));
    expect(jsonTextOf(past!.data).bus).toBe(bulkDataJson(past!.data));
  });

  it("an update too large for one event is several, each within the budget, in order", () => {
    const target = { datasetId: "d", spaceId: "s", versionId: "v", now: new Date(0) };
    const idOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const n = 40;
    const fields = Array.from({ length: n }, (_, i) => ({ big: "x".repeat(30_000), i }));
    const batch = updateBatch(fields.map((f, i) => ({ id: idOf(i), fields: f, at: i })));
    expect(batch.bytes).toBeGreaterThan(EVENT_EXAMPLE_BYTES);
    const events = updatedEvents(target, batch);
    expect(events.length).toBe(2);
    for (const event of events) {
      const { parts, bytes } = jsonTextOf(event.data);
      expect(JSON.parse(parts.join(""))).toEqual(event.data);
      expect(bytes).toBe(Buffer.byteLength(parts.join("")));
      expect(bytes).toBeLessThanOrEqual(EVENT_EXAMPLE_BYTES);
    }
    expect(events.flatMap(examplesOf)).toEqual(batch.records);
    expect(updatedEvents(target, updateBatch([]))).toEqual([]);
  });

  it("an experiment's bulk runs go on the bus as their ids, a few runs whole", () => {
    const idOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const events = (n: number) =>
      runEvents(
        { id: "e", spaceId: "s" },
        parseRuns(
          Array.from({ length: n }, (_, i) => ({
            exampleId: idOf(i),
            output: `answer ${i}`,
            fieldsJson: JSON.stringify({ latency_ms: i }),
          })),
          true,
        ),
        Array.from({ length: n }, (_, i) => idOf(1000 + i)),
        new Date(0),
      );
    const [bulk] = events(500);
    const bus = jsonTextOf(bulk!.data).bus;
    expect(JSON.parse(bus!)).toEqual({
      experiment_id: "e",
      space_id: "s",
      runs: Array.from({ length: 500 }, (_, i) => ({ id: idOf(1000 + i), example_id: idOf(i) })),
      at: new Date(0).toISOString(),
    });
    expect(JSON.parse(jsonTextOf(bulk!.data).parts.join(""))).toEqual(bulk!.data);
    expect(jsonTextOf(events(2)[0]!.data).bus).toBeUndefined();
  });
});
