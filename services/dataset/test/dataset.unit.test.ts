import { describe, expect, it } from "vitest";
import {
  packExamples,
  unpackExamples,
  type DatasetEvent,
  type DatasetExamplesEvent,
} from "@argus/contracts";
import {
  BULK_DATA_CHARS,
  bulkDataJson,
  chunkBySize,
  cutToIds,
  jsonTextOf,
} from "@argus/eventstore";
import { problem, scenario } from "@argus/eventstore/testing";
import { datasetDecider, type DatasetCommand } from "../src/datasets/datasetDecider.ts";
import { mergeRepeats } from "../src/examples/exampleCommands.ts";
import { runEvents } from "../src/experiments/experimentCommands.ts";
import { parseRuns } from "../src/experiments/experimentRunRules.ts";
import {
  EVENT_EXAMPLE_BYTES,
  insertedEvents,
  updatedEvents,
} from "../src/examples/exampleEvents.ts";
import {
  EXAMPLE_MAX_BYTES,
  parseExamples,
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
      json: JSON.stringify(fields),
      bytes: 1,
      at,
    });
    const merged = mergeRepeats([
      example("a", { x: 1, y: 1 }, 0),
      example("b", { z: 1 }, 1),
      example("a", { y: 2 }, 2),
    ]);
    expect(merged.map((e) => [e.id, e.fields])).toEqual([
      ["a", { x: 1, y: 2 }],
      ["b", { z: 1 }],
    ]);
    // The text stored for a merged example is the merge's, not either request item's.
    expect(merged.map((e) => JSON.parse(e.json) as unknown)).toEqual([{ x: 1, y: 2 }, { z: 1 }]);
  });

  it("packs an update's examples in step, and unpacks them as they were", () => {
    const packed = packExamples(["a", "", "c"], ["{}", '{"q":"x,y"}', '{"n":[1,2]}']);
    expect(packed).toEqual({ ids: "a,,c", fieldsJson: '{}\n{"q":"x,y"}\n{"n":[1,2]}' });
    expect(unpackExamples(packed)).toEqual([
      { id: "a", fieldsJson: "{}" },
      { id: "", fieldsJson: '{"q":"x,y"}' },
      { id: "c", fieldsJson: '{"n":[1,2]}' },
    ]);
    expect(unpackExamples(packExamples([], []))).toEqual([]);
    // Two lists out of step are the packer's own mistake: never sent.
    expect(() => packExamples(["a", "b"], ["{}"])).toThrow(RangeError);
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
      const { parts, bytes } = jsonTextOf(event.data);
      const text = parts.join("");
      expect(JSON.parse(text)).toEqual(event.data);
      expect(bytes).toBe(Buffer.byteLength(text));
      expect(event.data).toMatchObject({ dataset_id: "d", space_id: "s", version_id: "v" });
    }
    const stored = events.flatMap(examplesOf);
    expect(stored.map((e) => e.id)).toEqual(ids);
    expect(stored.map((e) => e.fields)).toEqual(texts.map((t) => JSON.parse(t) as unknown));
    expect(jsonTextOf(events[0]!.data).parts).toContain(texts[0]);

    const updated = updatedEvents(
      target,
      mergeRepeats(
        parseExamples(
          [
            { id: ids[0]!, fieldsJson: texts[0]! },
            { id: ids[0]!, fieldsJson: '{"n":2}' },
          ],
          "update",
        ),
      ),
    );
    const merged = jsonTextOf(updated[0]!.data);
    const mergedText = merged.parts.join("");
    expect(JSON.parse(mergedText)).toEqual(updated[0]!.data);
    expect(merged.bytes).toBe(Buffer.byteLength(mergedText));
    expect(examplesOf(updated[0]!)[0]!.fields).toMatchObject({ n: 2, q: 'a "quoted" line\n' });
    // Ids are uuids, but the size is the text's whatever an id holds (escapes, non-ASCII).
    const odd = jsonTextOf(
      updatedEvents(
        target,
        parseExamples([{ id: 'é\u{1f600}"\\', fieldsJson: "{}" }], "update"),
      )[0]!.data,
    );
    expect(odd.bytes).toBe(Buffer.byteLength(odd.parts.join("")));
    expect(JSON.parse(odd.parts.join(""))).toMatchObject({ examples: [{ id: 'é\u{1f600}"\\' }] });
  });

  it("a bulk event goes on the bus as its examples' ids, the audit log's cut of it, and a small one whole", () => {
    const target = { datasetId: "d", spaceId: "s", versionId: "v", now: new Date(0) };
    const idOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`;
    const events = (n: number, field: string) =>
      updatedEvents(
        target,
        parseExamples(
          Array.from({ length: n }, (_, i) => ({
            id: idOf(i),
            fieldsJson: JSON.stringify({ f: field, user_id: i }),
          })),
          "update",
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
    // Only data certainly over the bound goes cut: at it, and just past it (its strings and
    // keys alone are not), it goes whole, and the audit log cuts the latter itself.
    for (const extra of [0, 1]) {
      const [whole] = events(1, "x".repeat(oneEvent + extra));
      expect(JSON.stringify(whole!.data).length).toBe(BULK_DATA_CHARS + extra);
      expect(jsonTextOf(whole!.data).bus).toBeUndefined();
    }
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
