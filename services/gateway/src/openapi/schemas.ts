import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import type { JsonSchema, OpenApiDocument } from "./document.ts";

const addFormats = formats.default;
const COMPONENTS_ID = "urn:argus:openapi:components";
const LOCAL_SCHEMA_REF = "#/components/schemas/";
// OpenAPI keywords that are annotations, not JSON Schema 2020-12 vocabulary.
const OPENAPI_KEYWORDS = ["example", "discriminator", "xml", "externalDocs"];

/** Points `#/components/schemas/X` at the registered components schema, so refs resolve in ajv. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] =
      k === "$ref" && typeof v === "string" && v.startsWith(LOCAL_SCHEMA_REF)
        ? `${COMPONENTS_ID}#/$defs/${v.slice(LOCAL_SCHEMA_REF.length)}`
        : rewriteRefs(v);
  }
  return out;
}

export interface SchemaCompilers {
  /** Request bodies: JSON already has its types, so nothing is coerced or defaulted. */
  body(schema: JsonSchema): ValidateFunction;
  /** Path and query strings: coerced to the schema's types, defaults filled in. */
  input(schema: JsonSchema): ValidateFunction;
  /** The error to name of a failed validation's errors (see `chosenError`). */
  reported(errors: readonly ErrorObject[]): ErrorObject | undefined;
}

type Branch = { $ref?: string; properties?: Record<string, { const?: unknown; enum?: unknown[] }> };

/** A branch's single-valued properties (`const`, or an `enum` of one): what tells it apart. */
function tagsOf(branch: Branch): [string, unknown][] {
  return Object.entries(branch.properties ?? {}).flatMap(([name, p]): [string, unknown][] =>
    "const" in p ? [[name, p.const]] : p.enum?.length === 1 ? [[name, p.enum[0]]] : [],
  );
}

/**
 * The error to name of a failed validation. ajv stops at the first failing keyword (its error
 * comes last, after those of anything inside it). A failing `oneOf` otherwise names its first
 * branch's first error, as "'type' must be one of LLM" for a body meant for AGENT: the branch
 * meant is the one whose tags (`tagsOf`) the data carries, and its own error is the one to name;
 * a tag that matches no branch is named with every branch's value.
 */
function chosenError(
  errors: readonly ErrorObject[],
  branchOf: (schema: unknown) => { schema: Branch; validate: ValidateFunction },
): ErrorObject | undefined {
  const last = errors.at(-1);
  if (last?.keyword !== "oneOf" || !Array.isArray(last.schema)) return errors[0];
  const data = last.data as Record<string, unknown> | null;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return errors[0];
  const branches = (last.schema as unknown[]).map(branchOf);
  const tagged = branches.map((b) => tagsOf(b.schema).filter(([name]) => name in data));
  const meant = branches.filter(
    (_, i) => tagged[i]!.length > 0 && tagged[i]!.every(([name, v]) => data[name] === v),
  );
  if (meant.length === 1) {
    const { validate } = meant[0]!;
    if (validate(data)) return errors[0];
    const inner = chosenError(validate.errors ?? [], branchOf);
    return inner && { ...inner, instancePath: last.instancePath + inner.instancePath };
  }
  // One tag every branch has, and the data's value is none of them.
  const names = new Set(tagged.map((t) => (t.length === 1 ? t[0]![0] : "")));
  const [name] = names;
  if (meant.length === 0 && names.size === 1 && name)
    return {
      ...last,
      keyword: "enum",
      instancePath: `${last.instancePath}/${name}`,
      params: { allowedValues: tagged.map((t) => t[0]![1]) },
    };
  return errors[0];
}

export function createSchemaCompilers(doc: OpenApiDocument): SchemaCompilers {
  const make = (coerce: boolean): Ajv2020 => {
    const ajv = new Ajv2020({
      strict: true,
      allErrors: false,
      // The failing keyword's schema and data, for chosenError.
      verbose: true,
      coerceTypes: coerce ? "array" : false,
      useDefaults: coerce,
    });
    addFormats(ajv);
    ajv.addVocabulary(OPENAPI_KEYWORDS);
    ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(doc.components?.schemas ?? {}) });
    return ajv;
  };
  const bodyAjv = make(false);
  const inputAjv = make(true);
  // A oneOf's branches, compiled once each (a `$ref` is the component's own validator).
  const branches = new WeakMap<object, { schema: Branch; validate: ValidateFunction }>();
  const branchOf = (schema: unknown) => {
    const key = schema as Branch;
    let b = branches.get(key);
    if (!b) {
      const validate = key.$ref ? bodyAjv.getSchema(key.$ref) : bodyAjv.compile(key);
      if (!validate) throw new Error(`unresolved schema ${String(key.$ref)}`);
      b = { schema: (key.$ref ? validate.schema : key) as Branch, validate };
      branches.set(key, b);
    }
    return b;
  };
  return {
    body: (schema) => bodyAjv.compile(rewriteRefs(schema) as JsonSchema),
    input: (schema) => inputAjv.compile(rewriteRefs(schema) as JsonSchema),
    reported: (errors) => {
      // Only the detail's wording is at stake: a branch that cannot be compiled names ajv's first.
      try {
        return chosenError(errors, branchOf);
      } catch {
        return errors[0];
      }
    },
  };
}

const count = (n: unknown, noun: string): string => `${String(n)} ${noun}${n === 1 ? "" : "s"}`;

/** `/examples/0/id` → `examples[0].id` */
function fieldPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");
}

/** One ajv error as a sentence a client can act on; `where` names the part of the request. */
export function describeSchemaError(e: ErrorObject, where: "body" | "query" | "path"): string {
  const field = fieldPath(e.instancePath);
  const named = where === "body" ? `'${field}'` : `${where} parameter '${field}'`;
  const subject = field ? named : where === "body" ? "the request body" : `the ${where}`;
  const p = e.params as Record<string, unknown>;
  const within = field ? ` in '${field}'` : "";
  switch (e.keyword) {
    case "required":
      return `'${String(p.missingProperty)}' is required${within}`;
    case "additionalProperties":
      return where === "body"
        ? `'${String(p.additionalProperty)}' is not an accepted field${within}`
        : `unknown ${where} parameter '${String(p.additionalProperty)}'`;
    case "maxLength":
      return `${subject} must be at most ${count(p.limit, "character")}`;
    case "minLength":
      return `${subject} must be at least ${count(p.limit, "character")}`;
    case "maxItems":
      return `${subject} must contain at most ${count(p.limit, "item")}`;
    case "minItems":
      return `${subject} must contain at least ${count(p.limit, "item")}`;
    case "maximum":
    case "minimum":
      return `${subject} must be ${e.keyword === "maximum" ? "at most" : "at least"} ${String(p.limit)}`;
    case "type":
      return `${subject} must be of type ${String(p.type)}`;
    case "enum":
      return `${subject} must be one of ${(p.allowedValues as unknown[]).join(", ")}`;
    case "false schema":
      // `properties: { created_at: false }`: a field the object may not carry.
      return `${subject} is not an accepted field`;
    case "minProperties":
      return `${subject} must have at least ${count(p.limit, "field")}`;
    case "uniqueItems":
      return `${subject} must not repeat an item (items ${String(p.j)} and ${String(p.i)} are equal)`;
    case "pattern":
      // `\S` (or `^$|\S`): text that must not be whitespace only.
      return /^(\^\$\|)?\\S$/.test(String(p.pattern))
        ? `${subject} must not be blank`
        : `${subject} is malformed`;
    case "format":
      return `${subject} must be a valid ${String(p.format)}`;
    default:
      return `${subject} ${e.message ?? "is invalid"}`;
  }
}
