/** One example of an update as the gateway hands it on: its internal uuid and its fields' JSON. */
export interface ExampleText {
  id: string;
  fieldsJson: string;
}

/**
 * An update's examples as two texts (`PackedExamples` in dataset.proto): the ids joined by ","
 * (uuids, or empty for one that names nothing), the fields' JSON by "\n", which no text written
 * by JSON.stringify holds raw.
 */
export interface PackedExampleTexts {
  ids: string;
  fieldsJson: string;
}

export function packExamples(examples: readonly ExampleText[]): PackedExampleTexts {
  return {
    ids: examples.map((e) => e.id).join(","),
    fieldsJson: examples.map((e) => e.fieldsJson).join("\n"),
  };
}

/**
 * The examples `packExamples` packed; undefined when the two texts hold different numbers of
 * them (a fields text with a raw line break, an id with a comma): split anew, neither could
 * be told from two examples.
 */
export function unpackExamples(packed: PackedExampleTexts): ExampleText[] | undefined {
  if (packed.ids === "" && packed.fieldsJson === "") return [];
  const ids = packed.ids.split(",");
  const fields = packed.fieldsJson.split("\n");
  if (ids.length !== fields.length) return undefined;
  return ids.map((id, i) => ({ id, fieldsJson: fields[i]! }));
}
