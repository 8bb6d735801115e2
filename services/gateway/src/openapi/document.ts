import { readFileSync } from "node:fs";
import { parse } from "yaml";

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
export interface MediaType {
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
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  responses?: Record<string, ResponseObject | Reference>;
  "x-argus-validation-status"?: number;
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
  /** The file as written, served at /v2/spec.yaml. */
  text: string;
}

export const DEFAULT_DOCUMENT_PATH = new URL("../../../../openapi/argus-v2.yaml", import.meta.url);

export function loadDocument(path: string | URL = DEFAULT_DOCUMENT_PATH): LoadedDocument {
  const text = readFileSync(path, "utf8");
  const document = parse(text) as OpenApiDocument;
  if (typeof document?.openapi !== "string" || !document.openapi.startsWith("3.1")) {
    throw new Error(`${String(path)}: expected an OpenAPI 3.1 document`);
  }
  if (typeof document.paths !== "object" || document.paths === null)
    throw new Error(`${String(path)}: no paths`);
  return { document, text };
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
