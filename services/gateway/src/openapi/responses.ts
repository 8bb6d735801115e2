import type { ValidateFunction } from "ajv/dist/2020.js";
import type { HTTP_METHODS } from "./document.ts";
import { resolve, type OpenApiDocument, type ResponseObject } from "./document.ts";
import { createSchemaCompilers } from "./schemas.ts";

/**
 * Checks a response against the document: the operation matched by method and path must
 * declare the status (or a default) and the body must fit its schema. Used by the end-to-end
 * suite so the document stays the contract of what Argus answers, not only of what it accepts.
 */
export function createResponseChecker(doc: OpenApiDocument) {
  const compilers = createSchemaCompilers(doc);
  const cache = new Map<string, ValidateFunction | null>();
  const routes = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  }));
  return function check(
    method: string,
    path: string,
    status: number,
    contentType: string,
    body: unknown,
  ): string[] {
    const route = routes.find((r) => r.pattern.test(path.split("?")[0]!));
    const m = method.toLowerCase() as (typeof HTTP_METHODS)[number];
    const op = route ? doc.paths[route.template]?.[m] : undefined;
    if (!route || !op) return []; // unknown routes answer the generic Problem, checked elsewhere
    const declared = op.responses?.[String(status)] ?? op.responses?.default;
    if (!declared) return [`${method} ${route.template}: status ${status} is not declared`];
    const key = `${m} ${route.template} ${status}`;
    if (!cache.has(key)) {
      const content = resolve<ResponseObject>(doc, declared).content ?? {};
      const media = content[contentType.split(";")[0]!.trim()];
      cache.set(key, media?.schema ? compilers.body(media.schema) : null);
      if (!media && Object.keys(content).length > 0) {
        return [
          `${method} ${route.template} ${status}: content type ${contentType} is not declared`,
        ];
      }
    }
    const validate = cache.get(key);
    if (!validate || validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${method} ${route.template} ${status}: ${e.instancePath || "body"} ${e.message ?? ""}`,
    );
  };
}
