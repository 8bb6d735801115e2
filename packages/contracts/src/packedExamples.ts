import type { ExampleInput, PackedExamples } from "@argus/proto/dataset/v1/dataset";

/**
 * An update's examples as two texts (`PackedExamples` in dataset.proto): their ids joined by
 * "," (uuids, or empty for one that names nothing), their fields' JSON by "\n", which no text
 * written by JSON.stringify holds raw. Given as two lists in step, as the gateway makes them.
 */
export function packExamples(
  ids: readonly string[],
  fieldsJson: readonly string[],
): PackedExamples {
  if (ids.length !== fieldsJson.length)
    throw new RangeError(`${ids.length} ids for ${fieldsJson.length} fields texts`);
  return { ids: ids.join(","), fieldsJson: fieldsJson.join("\n") };
}

/**
 * The examples `packExamples` packed; undefined when the two texts hold different numbers of
 * them (a fields text with a raw line break, an id with a comma): split anew, neither could
 * be told from two examples.
 */
export function unpackExamples(packed: PackedExamples): ExampleInput[] | undefined {
  if (packed.ids === "" && packed.fieldsJson === "") return [];
  const ids = packed.ids.split(",");
  const fields = packed.fieldsJson.split("\n");
  if (ids.length !== fields.length) return undefined;
  return ids.map((id, i) => ({ id, fieldsJson: fields[i]! }));
}
