import { describe, expect, it } from "vitest";
import {
  HTTP_METHODS,
  loadDocument,
  resolve,
  type JsonSchema,
  type Parameter,
  type ResponseObject,
} from "../src/openapi/document.ts";

// The document's `links` let a client (and a stateful fuzzer) go from what a create or a list
// returns to every operation taking its id. They are checked here as the gateway cannot.

const { document: doc } = loadDocument();

interface Link {
  operationId: string;
  parameters?: Record<string, string>;
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  HTTP_METHODS.flatMap((m) => {
    const op = item[m];
    if (!op) return [];
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
      resolve<Parameter>(doc, p),
    );
    return [{ label: `${m.toUpperCase()} ${path}`, op, params }];
  }),
);
const byId = new Map(operations.map((o) => [o.op.operationId!, o]));

/** Follows `$ref`s and merges `allOf` branches, enough to walk a response body's properties. */
function schemaAt(schema: JsonSchema | undefined, pointer: string[]): JsonSchema | undefined {
  let s = schema;
  for (const segment of pointer) {
    s = flatten(s);
    if (!s) return undefined;
    s = /^\d+$/.test(segment)
      ? (s.items as JsonSchema | undefined)
      : (s.properties as Record<string, JsonSchema> | undefined)?.[segment];
  }
  return flatten(s);
}
function flatten(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema) return undefined;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return flatten(doc.components?.schemas?.[name]);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as JsonSchema[]).map(flatten);
    return {
      properties: Object.assign({}, ...parts.map((p) => p?.properties ?? {})) as JsonSchema,
    };
  }
  // A polymorphic answer (an integration of any type): only what every branch has is there.
  if (Array.isArray(schema.oneOf)) {
    const parts = (schema.oneOf as JsonSchema[]).map(
      (p) => (flatten(p)?.properties ?? {}) as Record<string, JsonSchema>,
    );
    const shared = Object.keys(parts[0] ?? {}).filter((k) => parts.every((p) => k in p));
    return { properties: Object.fromEntries(shared.map((k) => [k, parts[0]![k]!])) };
  }
  return schema;
}

const links = operations.flatMap(({ label, op, params }) =>
  Object.entries(op.responses ?? {}).flatMap(([status, r]) =>
    Object.entries(
      (resolve<ResponseObject>(doc, r) as ResponseObject & { links?: Record<string, Link> })
        .links ?? {},
    ).map(([name, link]) => ({ source: label, op, params, status, name, link })),
  ),
);

describe("OpenAPI links", () => {
  it("exist, and each names an operation of the document", () => {
    expect(links.length).toBeGreaterThan(100);
    for (const { source, name, link } of links)
      expect(byId.has(link.operationId), `${source} → ${name}`).toBe(true);
  });

  it("fill only parameters the target takes, from fields the source response has", () => {
    for (const { source, op, params, status, name, link } of links) {
      const target = byId.get(link.operationId)!;
      const schema = resolve<ResponseObject>(doc, op.responses![status]!).content?.[
        "application/json"
      ]?.schema;
      for (const [param, expr] of Object.entries(link.parameters ?? {})) {
        const where = `${source} ${status} → ${name}.${param} = ${expr}`;
        expect(
          target.params.some((p) => p.name === param && p.in === "path"),
          where,
        ).toBe(true);
        const body = /^\$response\.body#\/(.+)$/.exec(expr);
        const request = /^\$request\.path\.(\w+)$/.exec(expr);
        expect(body ?? request, where).not.toBeNull();
        if (body) expect(schemaAt(schema, body[1]!.split("/")), where).toBeDefined();
        if (request)
          expect(
            params.some((p) => p.name === request[1]),
            where,
          ).toBe(true);
      }
    }
  });

  it("reach every operation that takes a path id", () => {
    const linked = new Set(links.map((l) => l.link.operationId));
    const unreachable = operations
      .filter(({ params }) => params.some((p) => p.in === "path"))
      .filter(({ op }) => !linked.has(op.operationId!))
      .map(({ label }) => label);
    expect(unreachable).toEqual([]);
  });
});
