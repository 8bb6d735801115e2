import type { ExampleInput, PackedExamples } from "@argus/proto/dataset/v1/dataset";

/**
 * The examples of `PackedExamples` as gateways packed them before its `fields` (dataset.proto):
 * ids joined by ",", each example's fields' JSON by "\n", which no text written by
 * JSON.stringify holds raw. Undefined when the two texts hold different numbers of them (a
 * fields text with a raw line break, an id with a comma): split anew, neither could be told
 * from two examples.
 */
export function unpackExamples(packed: PackedExamples): ExampleInput[] | undefined {
  if (packed.ids === "" && packed.fieldsJson === "") return [];
  const ids = packed.ids.split(",");
  const fields = packed.fieldsJson.split("\n");
  if (ids.length !== fields.length) return undefined;
  return ids.map((id, i) => ({ id, fieldsJson: fields[i]! }));
}
