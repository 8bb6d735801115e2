import { LIMITS, type ExampleFields } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import type { ExampleInput } from "@argus/proto/dataset/v1/dataset";
import { invalid, unprocessable } from "../shared/problemRules.ts";

/**
 * Fields only the service sets; an example written with them is refused (spec 7). The public
 * clients read `annotations` as the example's annotation list, so it is the service's too.
 */
const SYSTEM_FIELDS = ["created_at", "updated_at", "annotations"] as const;

/** One example must fit one event; a larger one is a 413, never a stuck relay. */
export const EXAMPLE_MAX_BYTES = LIMITS.EXAMPLE_MAX_BYTES;

/** An example an update names: its id and the fields to merge into it. */
export interface ExampleUpdate {
  /** Internal uuid: the example to update; empty for inserts or an id that matched nothing. */
  id: string;
  fields: ExampleFields;
  /** Its position in the request (an update answers with the positions it changed). */
  at: number;
}

export interface ParsedExample extends ExampleUpdate {
  /** Its fields as the JSON text that came (a valid object's), stored as it is. */
  json: string;
  /** That text's UTF-8 size (`Buffer.byteLength(json)`), for the size rules. */
  bytes: number;
}

export type WriteKind = "insert" | "update";

/**
 * The fields an inserted example may not set, as the columns of a bulk upload (checked once,
 * before its rows): the system fields, and `id`.
 */
export function requireInsertableColumns(names: readonly string[]): void {
  for (const name of [...SYSTEM_FIELDS, "id"])
    if (names.includes(name))
      throw unprocessable(
        `column ${JSON.stringify(name)} is a system field: examples must not set it`,
      );
}

function requireCount(count: number, what: string): void {
  if (count < 1 || count > LIMITS.EXAMPLES_PER_WRITE_MAX)
    throw unprocessable(`${what} must hold 1 to ${LIMITS.EXAMPLES_PER_WRITE_MAX} items`);
}

/** Whether a parsed JSON object has no member (without listing a bulk write's keys). */
function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/**
 * The rules for one example's parsed fields: a JSON object of user-defined fields without
 * system fields; an inserted example has at least one field and no id of its own (ids are
 * assigned).
 */
function fieldsRules(fields: unknown, i: number, kind: WriteKind): ExampleFields {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields))
    throw unprocessable(`examples[${i}] must be an object`);
  for (const name of SYSTEM_FIELDS)
    if (Object.hasOwn(fields, name))
      throw unprocessable(`examples[${i}] must not set the system field ${name}`);
  if (kind === "insert") {
    if (Object.hasOwn(fields, "id"))
      throw unprocessable(`examples[${i}] must not set id: the service assigns example ids`);
    if (isEmpty(fields)) throw unprocessable(`examples[${i}] must have at least one field`);
  }
  return fields as ExampleFields;
}

/** Each example fits one event: fields whose JSON text is over the bound in UTF-8 are a 413. */
function requireExampleSize(bytes: number, i: number): void {
  if (bytes > EXAMPLE_MAX_BYTES)
    throw new DomainError(
      "payload-too-large",
      `examples[${i}] is ${bytes} bytes; one example holds at most ${EXAMPLE_MAX_BYTES}`,
    );
}

/**
 * The rules every example write applies before anything is read: 1 to 1000 examples, each
 * within `fieldsRules` and the size rule.
 */
export function parseExamples(inputs: readonly ExampleInput[], kind: WriteKind): ParsedExample[] {
  requireCount(inputs.length, "examples");
  return inputs.map((input, i) => {
    let fields: unknown;
    try {
      fields = JSON.parse(input.fieldsJson);
    } catch {
      throw invalid(`examples[${i}] is not JSON`);
    }
    const bytes = Buffer.byteLength(input.fieldsJson);
    const checked = fieldsRules(fields, i, kind);
    requireExampleSize(bytes, i);
    return {
      id: kind === "update" ? input.id : "",
      fields: checked,
      json: input.fieldsJson,
      bytes,
      at: i,
    };
  });
}

/**
 * An update's examples given as their ids joined by "," beside one JSON array of their fields
 * (dataset.proto's `PackedExamples.fields`), parsed in one call: 1 to 1000, each within
 * `fieldsRules`. Their sizes are left to `requireExampleSizes`, which a caller that writes
 * their text whole need not call when that text is within the bound.
 */
export function parseFieldsArray(idsText: string, fieldsText: string): ExampleUpdate[] {
  let fields: unknown;
  try {
    fields = JSON.parse(fieldsText);
  } catch {
    throw invalid("packed_examples.fields is not JSON");
  }
  if (!Array.isArray(fields)) throw invalid("packed_examples.fields is not a JSON array");
  const ids = idsText === "" && fields.length === 0 ? [] : idsText.split(",");
  if (ids.length !== fields.length)
    throw invalid("packed_examples holds a different number of ids and fields");
  requireCount(fields.length, "examples");
  return fields.map((f: unknown, i) => ({
    id: ids[i]!,
    fields: fieldsRules(f, i, "update"),
    at: i,
  }));
}

/** The size rule for examples parsed without a text of their own, measured one by one. */
export function requireExampleSizes(examples: readonly ExampleUpdate[]): void {
  for (const e of examples) requireExampleSize(Buffer.byteLength(JSON.stringify(e.fields)), e.at);
}

/** Spec 8: 1 to 1000 ids, none empty, none twice. */
export function requireDeletableIds(ids: readonly string[]): void {
  requireCount(ids.length, "example_ids");
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (id.length === 0) throw unprocessable(`example_ids[${i}] must not be empty`);
    if (seen.has(id)) throw unprocessable(`example_ids[${i}] repeats ${JSON.stringify(id)}`);
    seen.add(id);
  });
}
