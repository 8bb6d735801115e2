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
}

export function createSchemaCompilers(doc: OpenApiDocument): SchemaCompilers {
  const make = (coerce: boolean): Ajv2020 => {
    const ajv = new Ajv2020({
      strict: true,
      allErrors: false,
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
  return {
    body: (schema) => bodyAjv.compile(rewriteRefs(schema) as JsonSchema),
    input: (schema) => inputAjv.compile(rewriteRefs(schema) as JsonSchema),
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
