import type { ValidateFunction } from "ajv/dist/2020.js";
import { DomainError } from "@argus/platform";
import {
  HTTP_METHODS,
  resolve,
  type HttpMethod,
  type JsonSchema,
  type OpenApiDocument,
  type Parameter,
  type RequestBody,
} from "./document.ts";
import { createSchemaCompilers, describeSchemaError, type SchemaCompilers } from "./schemas.ts";

export interface RawInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/** One operation of the document, ready to route: where it lives and how its input is checked. */
export interface CompiledOperation {
  operationId: string;
  method: HttpMethod;
  /** The document's template, e.g. `/v2/spaces/{space_id}`. */
  path: string;
  /** Has a request body to read. */
  hasBody: boolean;
  /**
   * `x-argus-max-body-bytes`: the largest body this operation reads (dataset writes carry up to
   * 8 MiB of examples); undefined for the gateway's configured limit.
   */
  maxBodyBytes: number | undefined;
  /** Takes `limit` and `cursor`: the gateway verifies cursors and adds `pagination`. */
  paginated: boolean;
  /** Validates in place (coercing path and query, filling defaults); throws DomainError. */
  validate(input: RawInput): RawInput;
  /**
   * Declares the `Idempotency-Key` header (docs/architecture.md, "Safe retries"): the request
   * is then applied at most once per key. Operations that do not declare it ignore it.
   */
  acceptsIdempotencyKey: boolean;
  /** The header's value checked against its declared schema (400 when it breaks it). */
  idempotencyKey(raw: string | undefined): string | undefined;
  /**
   * Compiles the operation's validators now; otherwise its first request does (~6 ms), so
   * that a gateway starts without compiling the ~180 operations' (~1 s of CPU).
   */
  prepare(): void;
}

/** The header a retried request repeats so that it is not applied twice. */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

function objectSchema(params: Parameter[]): JsonSchema {
  return {
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

function check(
  compilers: SchemaCompilers,
  validate: ValidateFunction,
  data: unknown,
  where: "body" | "query" | "path",
  fail: (d: string) => DomainError,
): void {
  if (!validate(data)) {
    const error = compilers.reported(validate.errors ?? []);
    throw fail(error ? describeSchemaError(error, where) : `invalid ${where}`);
  }
}

function compileOperation(
  doc: OpenApiDocument,
  compilers: SchemaCompilers,
  path: string,
  method: HttpMethod,
): CompiledOperation {
  const item = doc.paths[path]!;
  const op = item[method]!;
  const where = `${method.toUpperCase()} ${path}`;
  if (!op.operationId) throw new Error(`${where}: operationId is required`);
  const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
    resolve<Parameter>(doc, p),
  );
  const byLocation = (loc: Parameter["in"]) => [
    ...new Map(params.filter((p) => p.in === loc).map((p) => [p.name, p])).values(),
  ];
  const query = byLocation("query");
  const pathParams = byLocation("path");
  const keyHeader = byLocation("header").find(
    (p) => p.name.toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase(),
  );
  const names = query.map((p) => p.name);
  const paginated = names.includes("cursor");
  if (paginated && query.find((p) => p.name === "limit")?.schema?.default === undefined) {
    throw new Error(`${where}: a paginated operation needs a 'limit' parameter with a default`);
  }
  const body = op.requestBody ? resolve<RequestBody>(doc, op.requestBody) : undefined;
  const bodySchema = body?.content["application/json"]?.schema;
  if (body && !bodySchema)
    throw new Error(`${where}: only application/json request bodies are supported`);
  const status = op["x-argus-validation-status"] ?? 400;
  if (status !== 400 && status !== 422)
    throw new Error(`${where}: x-argus-validation-status must be 400 or 422`);

  const maxBodyBytes = op["x-argus-max-body-bytes"];
  if (maxBodyBytes !== undefined && !(Number.isSafeInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new Error(`${where}: x-argus-max-body-bytes must be a positive integer`);
  if (maxBodyBytes !== undefined && !body)
    throw new Error(`${where}: x-argus-max-body-bytes needs a request body`);

  let validators:
    | {
        path: ValidateFunction;
        query: ValidateFunction;
        body: ValidateFunction | undefined;
        key: ValidateFunction | undefined;
      }
    | undefined;
  const prepare = () =>
    (validators ??= {
      path: compilers.input(objectSchema(pathParams)),
      query: compilers.input(objectSchema(query)),
      body: bodySchema ? compilers.body(bodySchema) : undefined,
      key: keyHeader && compilers.body(keyHeader.schema ?? {}),
    });
  const bodyFailure = status === 422 ? "validation-error" : "invalid-request";

  return {
    operationId: op.operationId,
    method,
    path,
    hasBody: bodySchema !== undefined,
    maxBodyBytes,
    paginated,
    acceptsIdempotencyKey: keyHeader !== undefined,
    prepare,
    idempotencyKey(raw) {
      if (raw === undefined || !keyHeader) return undefined;
      if (!prepare().key!(raw))
        throw new DomainError(
          "invalid-request",
          `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters`,
        );
      return raw;
    },
    validate(input) {
      const { path: validatePath, query: validateQuery, body: validateBody } = prepare();
      // A malformed id in the path names no resource (ARCHITECTURE §10), hence 404 not 400.
      check(
        compilers,
        validatePath,
        input.params,
        "path",
        () => new DomainError("resource-not-found", "resource not found"),
      );
      check(
        compilers,
        validateQuery,
        input.query,
        "query",
        (d) => new DomainError("invalid-request", d),
      );
      if (validateBody) {
        if (input.body === undefined) {
          if (body?.required)
            throw new DomainError("invalid-request", "a JSON request body is required");
        } else {
          check(
            compilers,
            validateBody,
            input.body,
            "body",
            (d) => new DomainError(bodyFailure, d),
          );
        }
      }
      return input;
    },
  };
}

/**
 * Every operation of the document, read once at start (a bad operation fails the start); each
 * one's validators are compiled on its first request, or by `prepare`.
 */
export function compileOperations(doc: OpenApiDocument): CompiledOperation[] {
  const compilers = createSchemaCompilers(doc);
  const ops: CompiledOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS)
      if (item[method]) ops.push(compileOperation(doc, compilers, path, method));
  }
  const ids = ops.map((o) => o.operationId);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new Error(`duplicate operationId ${dup}`);
  return ops;
}
