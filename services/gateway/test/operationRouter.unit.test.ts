import { createServer, request as httpRequest } from "node:http";
import express from "express";
import { DomainError } from "@argus/platform";
import { listenLocal } from "@argus/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDocument } from "../src/openapi/document.ts";
import { compileOperations } from "../src/openapi/operations.ts";
import { operationRouter, type RouteMatch } from "../src/http/operationRouter.ts";

const route = (path: string, method: string, name: string) => ({ path, method, route: name });

describe("finding a request's operation", () => {
  const find = operationRouter([
    route("/v2/spaces", "get", "list"),
    route("/v2/spaces", "post", "create"),
    route("/v2/spaces/{space_id}", "get", "get"),
    route("/v2/spaces/{space_id}", "delete", "delete"),
    route("/v2/spaces/{space_id}/members", "get", "members"),
    route("/v2/things/{id}", "get", "thing"),
    route("/v2/things/special", "post", "special"),
    route("/v2/things/{other}", "post", "other"),
  ]);

  it("matches literal segments case-insensitively and ignores one trailing slash", () => {
    expect(find("GET", "/v2/spaces")).toEqual({ kind: "operation", route: "list", params: {} });
    expect(find("GET", "/V2/Spaces/")).toEqual({ kind: "operation", route: "list", params: {} });
    expect(find("GET", "/v2/spaces//")).toEqual({ kind: "none" });
    expect(find("GET", "/v2/space")).toEqual({ kind: "none" });
    expect(find("GET", "/")).toEqual({ kind: "none" });
  });

  it("takes a parameter as one non-empty segment, percent-decoded, its case kept", () => {
    expect(find("GET", "/v2/spaces/AbC%20d/")).toEqual({
      kind: "operation",
      route: "get",
      params: { space_id: "AbC d" },
    });
    expect(find("GET", "/v2/spaces/a%2Fb/members")).toEqual({
      kind: "operation",
      route: "members",
      params: { space_id: "a/b" },
    });
    expect(find("GET", "/v2/spaces//members")).toEqual({ kind: "none" });
  });

  it("refuses a parameter whose encoding is not UTF-8 as a bad request, whatever the method", () => {
    for (const method of ["GET", "PUT"]) {
      const refused = (() => {
        try {
          return find(method, "/v2/spaces/%ff");
        } catch (err) {
          return err;
        }
      })();
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ type: "invalid-request" });
    }
  });

  it("answers HEAD with GET's operation, and another method with 405 and the path's methods", () => {
    expect(find("HEAD", "/v2/spaces/x")).toMatchObject({ kind: "operation", route: "get" });
    expect(find("PATCH", "/v2/spaces/x")).toEqual({
      kind: "method-not-allowed",
      allow: "GET, DELETE, HEAD",
    });
    expect(find("PUT", "/v2/spaces")).toEqual({
      kind: "method-not-allowed",
      allow: "GET, POST, HEAD",
    });
  });

  it("runs the first operation in document order that takes the method among matching paths", () => {
    expect(find("POST", "/v2/things/special")).toEqual({
      kind: "operation",
      route: "special",
      params: {},
    });
    expect(find("GET", "/v2/things/special")).toEqual({
      kind: "operation",
      route: "thing",
      params: { id: "special" },
    });
    expect(find("POST", "/v2/things/x")).toEqual({
      kind: "operation",
      route: "other",
      params: { other: "x" },
    });
    expect(find("PUT", "/v2/things/special")).toEqual({
      kind: "method-not-allowed",
      allow: "GET, HEAD",
    });
  });

  it("refuses a template whose parameter is not a whole segment", () => {
    expect(() => operationRouter([route("/v2/runs/{id}:cancel", "post", "x")])).toThrow(
      /unsupported path template/,
    );
  });
});

// The reference: the document's operations as Express routes, one per operation in document
// order and a 405 per path after them, as the gateway registered them before.
describe("the served document's operations, against Express's routing of them", () => {
  const ops = compileOperations(loadDocument().document);
  const find = operationRouter(ops.map((o) => ({ ...o, route: o.operationId })));
  let base = "";
  let close: () => void = () => undefined;

  beforeAll(async () => {
    const app = express();
    const expressPath = (p: string) =>
      p.replace(/\{([A-Za-z_$][\w$]*)\}/g, ":$1").replace(/[()[\]?+!*\\]/g, "\\$&");
    for (const o of ops)
      app.route(expressPath(o.path))[o.method]((req, res) => {
        res.json({ kind: "operation", route: o.operationId, params: { ...req.params } });
      });
    for (const path of new Set(ops.map((o) => o.path))) {
      const methods = ops.filter((o) => o.path === path).map((o) => o.method.toUpperCase());
      if (methods.includes("GET")) methods.push("HEAD");
      app.all(expressPath(path), (_req, res) => {
        res.json({ kind: "method-not-allowed", allow: methods.join(", ") });
      });
    }
    app.use((_req, res) => void res.json({ kind: "none" }));
    app.use(
      (err: Error & { status?: number }, _req: unknown, res: express.Response, _n: unknown) => {
        res.json({ kind: "error", status: err.status });
      },
    );
    const server = createServer(app);
    base = `http://127.0.0.1:${await listenLocal(server)}`;
    close = () => server.close();
  });
  afterAll(() => close());

  const viaExpress = (method: string, path: string) =>
    new Promise<unknown>((resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { method }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve(JSON.parse(text)));
      });
      req.on("error", reject);
      req.end();
    });
  const viaRouter = (
    method: string,
    path: string,
  ): RouteMatch<string> | { kind: "error"; status: number } => {
    try {
      return find(method, path);
    } catch (err) {
      if (err instanceof DomainError) return { kind: "error", status: 400 };
      throw err;
    }
  };

  it("finds the same operation, parameters, 405 or nothing for every path of the document", async () => {
    const samples = (template: string): string[] => {
      const filled = template.replace(/\{[^}]+\}/g, "Ab%20c");
      return [
        filled,
        `${filled}/`,
        `${filled}//`,
        filled.toUpperCase().replace(/AB%20C/g, "Ab%20c"),
        template.replace(/\{[^}]+\}/g, "%E0%A4%A"),
        template.replace(/\{[^}]+\}/g, ""),
        `${filled}/extra`,
        filled.replace(/\/[^/]*$/, "/nope"),
      ];
    };
    let compared = 0;
    const paths = new Set(ops.map((o) => o.path));
    for (const path of paths)
      for (const sample of samples(path))
        for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
          expect({ method, sample, found: viaRouter(method, sample) }).toEqual({
            method,
            sample,
            found: await viaExpress(method, sample),
          });
          compared++;
        }
    expect(compared).toBe(paths.size * 8 * 5);
    expect(paths.size).toBeGreaterThan(80);
  });
});
