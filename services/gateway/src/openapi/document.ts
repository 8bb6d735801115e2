import { readFileSync, readdirSync } from "node:fs";
import jsYaml from "js-yaml";
import { stringify } from "yaml";
import { LIMITS } from "@argus/contracts/limits";

/** The subset of OpenAPI 3.1 the gateway reads. Schemas go to ajv untouched. */
export type JsonSchema = Record<string, unknown>;
export interface Reference {
  $ref: string;
}
export interface Parameter {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}
interface MediaType {
  schema?: JsonSchema;
}
export interface RequestBody {
  required?: boolean;
  description?: string;
  content: Record<string, MediaType>;
}
export interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  responses?: Record<string, ResponseObject | Reference>;
  "x-argus-validation-status"?: number;
  /** The largest request body this operation reads, when it exceeds the gateway's default. */
  "x-argus-max-body-bytes"?: number;
}
export const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type PathItem = { parameters?: (Parameter | Reference)[] } & {
  [M in HttpMethod]?: Operation;
};
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, PathItem>;
  components?: { schemas?: Record<string, JsonSchema> } & Record<string, unknown>;
}

export interface LoadedDocument {
  document: OpenApiDocument;
  /** The whole document (root and parts merged), served at /v2/spec.yaml. */
  text: string;
}

export const DEFAULT_DOCUMENT_PATH = new URL("../../../../openapi/argus-v2.yaml", import.meta.url);

/**
 * The root document plus every `paths/*.yaml` part beside it, merged: each resource group
 * keeps its paths and components in a file of its own, and the parts may not collide.
 */
export function loadDocument(path: string | URL = DEFAULT_DOCUMENT_PATH): LoadedDocument {
  const document = parseYaml(readFileSync(path, "utf8")) as OpenApiDocument;
  if (typeof document?.openapi !== "string" || !document.openapi.startsWith("3.1")) {
    throw new Error(`${String(path)}: expected an OpenAPI 3.1 document`);
  }
  document.paths ??= {};
  const partsDir = new URL("paths/", new URL(".", path));
  const parts = listYaml(partsDir);
  for (const file of parts)
    mergePart(document, file, parseYaml(readFileSync(new URL(file, partsDir), "utf8")) as Part);
  if (Object.keys(document.paths).length === 0) throw new Error(`${String(path)}: no paths`);
  applyLimits(document);
  let text: string | undefined;
  return {
    document,
    // Written out when first served (~0.3 s for the whole document): not on every start.
    get text() {
      return (text ??= parts.length === 0 ? readFileSync(path, "utf8") : stringify(document));
    },
  };
}

/**
 * YAML 1.2's core schema, as the `yaml` package that writes the served text reads it (no
 * timestamps, merge keys or binary), through js-yaml: ~5x faster over the whole document,
 * which every gateway reads at start.
 */
export function parseYaml(text: string): unknown {
  return jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
}

interface Part {
  paths?: Record<string, PathItem>;
  components?: Record<string, Record<string, unknown>>;
  tags?: { name: string }[];
}

function listYaml(dir: URL): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".yaml"))
      .sort();
  } catch {
    return [];
  }
}

function mergePart(doc: OpenApiDocument, file: string, part: Part): void {
  const into = <T>(
    target: Record<string, T>,
    source: Record<string, T> | undefined,
    what: string,
  ) => {
    for (const [k, v] of Object.entries(source ?? {})) {
      if (k in target) throw new Error(`openapi/paths/${file}: ${what} ${k} is defined twice`);
      target[k] = v;
    }
  };
  into(doc.paths, part.paths, "path");
  doc.components ??= {};
  const components = doc.components as Record<string, Record<string, unknown>>;
  for (const [kind, entries] of Object.entries(part.components ?? {})) {
    components[kind] ??= {};
    into(components[kind], entries, `components.${kind}`);
  }
  const tags = ((doc as { tags?: { name: string }[] }).tags ??= []);
  for (const t of part.tags ?? []) if (!tags.some((x) => x.name === t.name)) tags.push(t);
}

export const isReference = (v: unknown): v is Reference =>
  typeof v === "object" && v !== null && typeof (v as Reference).$ref === "string";

/** Follows local `$ref`s (`#/components/...`) of non-schema objects; schemas are left to ajv. */
export function resolve<T>(doc: OpenApiDocument, value: T | Reference): T {
  let v: unknown = value;
  for (let hops = 0; isReference(v); hops++) {
    const ref = v.$ref;
    if (!ref.startsWith("#/") || hops > 16) throw new Error(`unsupported $ref ${ref}`);
    v = ref
      .slice(2)
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
    if (v === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return v as T;
}

/**
 * `x-argus-limit: NAME` becomes `maxLength` (strings), `maxItems` (arrays) or `maximum` (integers,
 * e.g. a page size) with the value the deciders use (@argus/contracts LIMITS): one number, read
 * by the edge and the domain alike.
 */
export function applyLimits(node: unknown, at = "#"): void {
  if (Array.isArray(node)) return node.forEach((n, i) => applyLimits(n, `${at}/${i}`));
  if (typeof node !== "object" || node === null) return;
  const o = node as Record<string, unknown>;
  const name = o["x-argus-limit"];
  if (name !== undefined) {
    const value = LIMITS[name as keyof typeof LIMITS];
    if (value === undefined) throw new Error(`${at}: unknown x-argus-limit ${String(name)}`);
    const types = [o.type].flat();
    if (types.includes("array")) o.maxItems = value;
    else if (types.includes("string")) o.maxLength = value;
    else if (types.includes("integer")) o.maximum = value;
    else throw new Error(`${at}: x-argus-limit needs type string, array or integer`);
    delete o["x-argus-limit"];
  }
  for (const [k, v] of Object.entries(o)) applyLimits(v, `${at}/${k}`);
}
