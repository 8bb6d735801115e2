import {
  Binary,
  Float64,
  Int64,
  List,
  Field,
  type Table,
  Utf8,
  type DataType,
  type RecordBatch,
} from "apache-arrow";
import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  ANNOTATIONS,
  EVALUATIONS,
  annotationOf,
  evaluationOf,
  metadataLayout,
  patchOf,
  readUpdates,
  spanUpdateLayout,
  updatesOfBatch,
} from "../src/flight/spans.ts";
import { projectOfArizeSchema } from "../src/flight/pandasArrow.ts";
import { Schema as ArizeSchema, Schema_Environment } from "@argus/proto/public/public";
import { table } from "./arrowTables.ts";

const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error("not refused");
};

const evals = () =>
  table({
    "context.span_id": [new Utf8(), ["a", "b", "c"]],
    "eval.correctness.label": [new Utf8(), ["yes", null, null]],
    "eval.correctness.score": [new Float64(), [1, 0.5, NaN]],
    "eval.correctness.explanation": [new Utf8(), ["why", null, null]],
    "eval.tone.score": [new Int64(), [null, 3n, null]],
  });

async function* batches(t: Table): AsyncGenerator<RecordBatch> {
  for (const b of t.batches) yield b;
}

describe("span updates: columns → updates", () => {
  it("each row's values of a name are one update; none of a name is no update", () => {
    const t = evals();
    const layout = spanUpdateLayout(t.schema, EVALUATIONS);
    expect(layout.names.map((n) => n.name)).toEqual(["correctness", "tone"]);
    expect(updatesOfBatch(t.batches[0]!, layout, 0)).toEqual([
      { spanId: "a", name: "correctness", values: { label: "yes", score: 1, explanation: "why" } },
      { spanId: "b", name: "correctness", values: { score: 0.5 } },
      { spanId: "b", name: "tone", values: { score: 3 } },
    ]);
  });

  it("as the tracing service takes them: absent fields stay absent", () => {
    const [a, b] = updatesOfBatch(
      evals().batches[0]!,
      spanUpdateLayout(evals().schema, EVALUATIONS),
      0,
    );
    expect(evaluationOf(a!)).toEqual({
      spanId: "a",
      name: "correctness",
      label: "yes",
      score: 1,
      explanation: "why",
    });
    expect(evaluationOf(b!)).toEqual({
      spanId: "b",
      name: "correctness",
      label: undefined,
      score: 0.5,
      explanation: undefined,
    });
  });

  it("annotations: label, score and text are stored; updated_by, updated_at and notes are read past", () => {
    const t = table({
      "context.span_id": [new Utf8(), ["a", "b"]],
      "annotation.quality.label": [new Utf8(), ["good", null]],
      "annotation.quality.text": [new Utf8(), [null, "meh"]],
      "annotation.quality.updated_by": [new Utf8(), ["SDK", "SDK"]],
      "annotation.quality.updated_at": [new Int64(), [1n, 2n]],
      "annotation.notes": [new List(new Field("item", new Utf8())), [['{"text":"n"}'], null]],
    });
    const updates = updatesOfBatch(t.batches[0]!, spanUpdateLayout(t.schema, ANNOTATIONS), 0);
    expect(updates.map(annotationOf)).toEqual([
      { spanId: "a", name: "quality", label: "good", score: undefined, text: undefined },
      { spanId: "b", name: "quality", label: undefined, score: undefined, text: "meh" },
    ]);
  });

  it("another span id column when the request names one", () => {
    const t = table({
      id: [new Utf8(), ["x"]],
      "eval.e.label": [new Utf8(), ["l"]],
    });
    expect(updatesOfBatch(t.batches[0]!, spanUpdateLayout(t.schema, EVALUATIONS, "id"), 0)).toEqual(
      [{ spanId: "x", name: "e", values: { label: "l" } }],
    );
  });

  it("refuses, naming the column: no span ids, span ids not text, a value of the wrong type, a column of no update, no value column", () => {
    const only = (columns: Record<string, [DataType, unknown[]]>) => table(columns).schema;
    const cases: [Record<string, [DataType, unknown[]]>, RegExp][] = [
      [{ "eval.e.label": [new Utf8(), ["l"]] }, /no "context\.span_id" column/],
      [
        { "context.span_id": [new Int64(), [1n]], "eval.e.label": [new Utf8(), ["l"]] },
        /column "context\.span_id" must hold span ids as text/,
      ],
      [
        { "context.span_id": [new Utf8(), ["a"]], "eval.e.score": [new Utf8(), ["high"]] },
        /column "eval\.e\.score" has Arrow type Utf8: it must hold numbers/,
      ],
      [
        {
          "context.span_id": [new Utf8(), ["a"]],
          "eval.e.label": [new Binary(), [new Uint8Array(1)]],
        },
        /column "eval\.e\.label" has Arrow type Binary: it must hold text/,
      ],
      [
        { "context.span_id": [new Utf8(), ["a"]], "eval.e.metadata": [new Utf8(), ["m"]] },
        /column "eval\.e\.metadata" is not one of context\.span_id, eval\.<name>\.label/,
      ],
      [
        { "context.span_id": [new Utf8(), ["a"]], other: [new Utf8(), ["m"]] },
        /column "other" is not one of/,
      ],
      [{ "context.span_id": [new Utf8(), ["a"]] }, /no value columns/],
    ];
    for (const [columns, says] of cases) {
      const err = refusal(() => spanUpdateLayout(only(columns), EVALUATIONS));
      expect(err.type).toBe("invalid-request");
      expect(err.message).toMatch(says);
    }
    // An annotation's updated_at of text is no annotation's.
    const err = refusal(() =>
      spanUpdateLayout(
        only({
          "context.span_id": [new Utf8(), ["a"]],
          "annotation.q.score": [new Float64(), [1]],
          "annotation.q.text": [new Float64(), [1]],
        }),
        ANNOTATIONS,
      ),
    );
    expect(err.message).toMatch(/column "annotation\.q\.text" has Arrow type Float64/);
  });

  it("a row without a span id is refused with its number in the upload", () => {
    const t = table({
      "context.span_id": [new Utf8(), ["a", null]],
      "eval.e.label": [new Utf8(), ["l", "m"]],
    });
    const err = refusal(() =>
      updatesOfBatch(t.batches[0]!, spanUpdateLayout(t.schema, EVALUATIONS), 40),
    );
    expect(err.message).toBe('row 41 has no span id in "context.span_id"');
  });

  it("the bytes of an upload's updates: at the bound it passes, one byte under it is 413", async () => {
    const t = evals();
    const layout = spanUpdateLayout(t.schema, EVALUATIONS);
    // ids and names + 16 each; text its UTF-8 bytes, numbers 9.
    const size = 1 + 11 + 16 + (3 + 9 + 3) + (1 + 11 + 16 + 9) + (1 + 4 + 16 + 9);
    const read = await readUpdates({ schema: t.schema, batches: batches(t) }, layout, size);
    expect(read).toHaveLength(3);
    await expect(
      readUpdates({ schema: t.schema, batches: batches(t) }, layout, size - 1),
    ).rejects.toMatchObject({ type: "payload-too-large" });
  });

  it("text is counted in UTF-8 bytes: two-byte and four-byte characters at the bound", async () => {
    const t = table({
      "context.span_id": [new Utf8(), ["a"]],
      "eval.e.label": [new Utf8(), ["é😀"]],
    });
    const layout = spanUpdateLayout(t.schema, EVALUATIONS);
    const size = 1 + 1 + 16 + (2 + 4);
    expect(await readUpdates({ schema: t.schema, batches: batches(t) }, layout, size)).toHaveLength(
      1,
    );
    await expect(
      readUpdates({ schema: t.schema, batches: batches(t) }, layout, size - 1),
    ).rejects.toMatchObject({ type: "payload-too-large" });
  });

  it("metadata: span ids and patch_document, each row's patch as it came; nothing else", () => {
    const t = table({
      "context.span_id": [new Utf8(), ["a", "b"]],
      patch_document: [new Utf8(), ['{"k":1}', null]],
    });
    const updates = updatesOfBatch(t.batches[0]!, metadataLayout(t.schema), 0);
    expect(updates.map(patchOf)).toEqual([{ spanId: "a", patchJson: '{"k":1}' }]);
    const cases: [Record<string, [DataType, unknown[]]>, RegExp][] = [
      [{ "context.span_id": [new Utf8(), ["a"]] }, /no "patch_document" column/],
      [
        { "context.span_id": [new Utf8(), ["a"]], patch_document: [new Int64(), [1n]] },
        /column "patch_document" has Arrow type Int64: it must hold JSON text/,
      ],
      [
        { "context.span_id": [new Utf8(), ["a"]], "attributes.metadata.k": [new Utf8(), ["v"]] },
        /column "attributes\.metadata\.k" is not one of context\.span_id, patch_document/,
      ],
    ];
    for (const [columns, says] of cases)
      expect(refusal(() => metadataLayout(table(columns).schema)).message).toMatch(says);
  });
});

describe("POST /v1/pandas_arrow: the project an arize-schema names", () => {
  const encoded = (environment: Schema_Environment, modelId: string) =>
    Buffer.from(
      ArizeSchema.encode(ArizeSchema.fromJSON({ constants: { modelId, environment } })).finish(),
    ).toString("base64");

  it("reads the SDK's tracing schema (public-v2-flight.md §2.4e)", () => {
    expect(projectOfArizeSchema("CgoKBHByb2ogBSgHQgA=")).toBe("proj");
  });

  it("refuses no schema, one that is not protobuf, another environment, no project", () => {
    const cases: [string | undefined, RegExp][] = [
      [undefined, /no 'arize-schema' metadata/],
      [Buffer.from([0x0a, 0x05, 0x01]).toString("base64"), /not a base64 public\.Schema/],
      [encoded(Schema_Environment.PRODUCTION, "p"), /only tracing uploads/],
      [encoded(Schema_Environment.TRACING, " "), /names no project/],
    ];
    for (const [metadata, says] of cases) {
      const err = refusal(() => projectOfArizeSchema(metadata));
      expect(err.type).toBe("invalid-request");
      expect(err.message).toMatch(says);
    }
  });
});
