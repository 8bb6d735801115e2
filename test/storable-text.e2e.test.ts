import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

// Text Postgres cannot hold (U+0000; an unpaired surrogate, which has no UTF-8 form) is refused
// at the gateway with a 400 naming where it was, on every operation, before anything is
// written; and every error, even the HTTP parser's own, is a Problem.

let api: Api;
let spaceId: string;
let tagId: string;

const prompt = (name: string, invocation_params: Json) => ({
  space_id: spaceId,
  name,
  version: {
    commit_message: "initial",
    provider: "OPEN_AI",
    model: "gpt-4o",
    messages: [{ role: "USER", content: "Hello" }],
    invocation_params,
  },
});
const tagNames = async (): Promise<string[]> =>
  (await api.req("GET", `/v2/tags?space_id=${spaceId}&limit=100`)).body.tags.map(
    (t: Json) => t.name,
  );

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  tagId = (await api.req("POST", "/v2/tags", { body: { name: "kept", space_id: spaceId } })).body
    .id;
});
afterAll(() => api?.stop());

describe("U+0000 and unpaired surrogates are refused with a 400 naming them, and nothing is stored", () => {
  it("in a body field", async () => {
    const res = await api.req("POST", "/v2/tags", {
      body: { name: "nul\u0000name", space_id: spaceId },
    });
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toBe("'name' contains U+0000, which cannot be stored");
    expect(await tagNames()).toEqual(["kept"]);
  });

  it("in a nested user-defined field, key or value", async () => {
    const value = await api.req("POST", "/v2/prompts", {
      body: prompt("nul-value", { response_format: { json_schema: { title: "a\u0000b" } } }),
    });
    expectProblem(value, 400, "invalid-request");
    expect(value.body.detail).toBe(
      "'version.invocation_params.response_format.json_schema.title' contains U+0000, which cannot be stored",
    );
    const key = await api.req("POST", "/v2/prompts", {
      body: prompt("nul-key", { response_format: { json_schema: { "ti\u0000tle": "x" } } }),
    });
    expectProblem(key, 400, "invalid-request");
    expect(key.body.detail).toMatch(
      /^a field name in 'version\.invocation_params\.response_format\.json_schema' contains U\+0000/,
    );
    const listed = await api.req("GET", `/v2/prompts?space_id=${spaceId}`);
    expect(listed.body.prompts).toEqual([]);
  });

  it("in a query parameter, percent-encoded", async () => {
    const res = await api.req("GET", `/v2/tags?space_id=${spaceId}&name=%00x`);
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toBe("query parameter 'name' contains U+0000, which cannot be stored");
  });

  it("in a path parameter, percent-encoded: the tag it would have deleted is still there", async () => {
    const res = await api.req("DELETE", `/v2/tags/${tagId}%00`);
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toBe("path parameter 'tag_id' contains U+0000, which cannot be stored");
    expect((await api.req("GET", `/v2/tags/${tagId}`)).status).toBe(200);
  });

  it("a lone surrogate: as a JSON escape, as raw bytes, percent-encoded in the query and path", async () => {
    // JSON.stringify writes a lone surrogate as the escape \ud800; the server must not store U+FFFD.
    const escaped = await api.req("POST", "/v2/tags", {
      body: { name: "sur\ud800x", space_id: spaceId },
    });
    expectProblem(escaped, 400, "invalid-request");
    expect(escaped.body.detail).toBe(
      "'name' contains an unpaired surrogate, which cannot be stored",
    );
    const bytes = Buffer.concat([
      Buffer.from(`{"space_id":"${spaceId}","name":"sur`),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('x"}'),
    ]);
    const res = await fetch(`${api.stack.baseUrl}/v2/tags`, {
      method: "POST",
      headers: { authorization: `Bearer ${api.stack.apiKey}`, "content-type": "application/json" },
      body: bytes,
    });
    const raw = { status: res.status, headers: res.headers, body: (await res.json()) as Json };
    expectProblem(raw, 400, "invalid-request");
    expect(raw.body.detail).toBe("the request body is not valid UTF-8");
    const query = await api.req("GET", `/v2/tags?space_id=${spaceId}&name=%ED%A0%80`);
    expectProblem(query, 400, "invalid-request");
    expect(query.body.detail).toBe("query parameter 'name' is not UTF-8, which cannot be stored");
    const path = await api.req("DELETE", `/v2/tags/${tagId}%ED%A0%80`);
    expectProblem(path, 400, "invalid-request");
    expect(path.body.detail).toMatch(/^path parameter '.*%ED%A0%80' is not UTF-8/);
    expect(await tagNames()).toEqual(["kept"]);
  });

  it("well-formed text outside the BMP is stored and returned as sent", async () => {
    const name = "astral \u{1F389} ok";
    const created = await api.req("POST", "/v2/tags", { body: { name, space_id: spaceId } });
    expect(created.status).toBe(201);
    expect((await api.req("GET", `/v2/tags/${created.body.id}`)).body.name).toBe(name);
  });
});

describe("errors the HTTP server answers itself are Problems too", () => {
  it("headers past the limit: 431 with a Problem body, not an empty one", async () => {
    const { port } = new URL(api.stack.baseUrl);
    const text = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), "127.0.0.1", () =>
        socket.end(`GET /v2/tags HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`),
      );
      let out = "";
      socket.on("data", (c: Buffer) => (out += c.toString()));
      socket.on("error", () => undefined);
      socket.on("close", () => resolve(out));
    });
    const [head = "", body = ""] = text.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(JSON.parse(body)).toMatchObject({
      status: 431,
      type: expect.stringMatching(/#request-header-fields-too-large$/),
    });
  });

  it("a request target past 16 KiB (a long cursor): 414 with a Problem body", async () => {
    const res = await api.req("GET", `/v2/tags?cursor=${"a".repeat(24_000)}`);
    expectProblem(res, 414, "uri-too-long");
  });
});
