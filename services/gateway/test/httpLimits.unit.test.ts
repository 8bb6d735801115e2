import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_HEADER_BYTES, MAX_URI_BYTES } from "../src/http/httpLimits.ts";
import { startGateway, type TestGateway } from "./startGateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({});
});
afterAll(() => gw.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes bytes on a fresh connection and reads until the server closes it. */
function raw(request: string | Buffer): Promise<RawResponse> {
  const { port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    // The server may close while we still write: what it answered is what counts.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const status = Number(statusLine.split(" ")[1]);
      if (!status)
        return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const headers = Object.fromEntries(
        lines.map((l) => [
          l.slice(0, l.indexOf(":")).toLowerCase(),
          l.slice(l.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({ status, headers, body });
    });
  });
}

function expectProblem(res: RawResponse, status: number, fragment: string): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
  const problem = JSON.parse(res.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, type: `https://argus.dev/errors#${fragment}` });
  expect(problem.title).toEqual(expect.any(String));
  expect(problem.detail).toEqual(expect.any(String));
  expect(problem.request_id).toBe(res.headers["x-request-id"]);
}

describe("requests the HTTP parser refuses before Express runs still get a Problem", () => {
  it("a request line past the header limit is 431", async () => {
    const res = await raw(
      `GET /v2/tags?cursor=${"a".repeat(MAX_HEADER_BYTES)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expectProblem(res, 431, "request-header-fields-too-large");
    expect(JSON.parse(res.body).instance).toEqual(expect.any(String));
  });

  it("headers larger than the limit are 431", async () => {
    const res = await raw(
      `GET /v2/tags HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(MAX_HEADER_BYTES)}\r\n\r\n`,
    );
    expectProblem(res, 431, "request-header-fields-too-large");
  });

  it("a malformed request line, a NUL in a header and a bad Content-Length are 400", async () => {
    expectProblem(await raw("BLAH\r\n\r\n"), 400, "invalid-request");
    expectProblem(
      await raw("GET /v2/tags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\0b\r\n\r\n"),
      400,
      "invalid-request",
    );
    expectProblem(
      await raw("POST /v2/tags HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
      400,
      "invalid-request",
    );
  });

  it("a target past MAX_URI_BYTES (but within the header limit) is 414, from the app", async () => {
    const res = await raw(
      `GET /v2/tags?name=${"a".repeat(MAX_URI_BYTES)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expectProblem(res, 414, "uri-too-long");
    expect(JSON.parse(res.body).instance).toBe("/v2/tags");
  });

  it("a target just within MAX_URI_BYTES reaches the operation", async () => {
    const path = "/v2/tags?name=";
    const res = await raw(
      `GET ${path}${"a".repeat(MAX_URI_BYTES - path.length)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    // No key: the operation's pipeline answers, with its own Problem.
    expectProblem(res, 401, "authentication-required");
  });
});
