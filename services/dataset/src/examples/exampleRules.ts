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

export interface ParsedExample {
  /** Internal uuid: the example to update; empty for inserts or an id that matched nothing. */
  id: string;
  fields: ExampleFields;
  /** Its fields as the JSON text that came (a valid object's), stored as it is. */
  json: string;
  /** That text's UTF-8 size (`Buffer.byteLength(json)`), for the size rules. */
  bytes: number;
  /** Its position in the request (an update answers with the positions it changed). */
  at: number;
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
 * The rules every example write applies before anything is read: 1 to 1000 examples, each a
 * JSON object of user-defined fields without system fields; an inserted example has at least
 * one field and no id of its own (ids are assigned); each fits one event.
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
    const bytes = Buffer.byteLength(input.fieldsJson);
    if (bytes > EXAMPLE_MAX_BYTES)
      throw new DomainError(
        "payload-too-large",
        `examples[${i}] is ${bytes} bytes; one example holds at most ${EXAMPLE_MAX_BYTES}`,
      );
    return {
      id: kind === "update" ? input.id : "",
      fields: fields as ExampleFields,
      json: input.fieldsJson,
      bytes,
      at: i,
    };
  });
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
