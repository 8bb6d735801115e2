import { describe, expect, it } from "vitest";
import type { DatasetEvent } from "@argus/contracts";
import { chunkBySize } from "@argus/eventstore";
import { problem, scenario } from "@argus/eventstore/testing";
import { datasetDecider, type DatasetCommand } from "../src/datasets/datasetDecider.ts";
import { mergeRepeats } from "../src/examples/exampleCommands.ts";
import { EVENT_EXAMPLE_BYTES } from "../src/examples/exampleEvents.ts";
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
    const merged = mergeRepeats([
      { id: "a", fields: { x: 1, y: 1 }, bytes: 1, at: 0 },
      { id: "b", fields: { z: 1 }, bytes: 1, at: 1 },
      { id: "a", fields: { y: 2 }, bytes: 1, at: 2 },
    ]);
    expect(merged.map((e) => [e.id, e.fields])).toEqual([
      ["a", { x: 1, y: 2 }],
      ["b", { z: 1 }],
    ]);
  });
});
