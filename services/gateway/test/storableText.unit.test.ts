import { DomainError } from "@argus/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiRequest } from "../src/http/handler.ts";
import { rememberBodyText } from "../src/http/bodyText.ts";
import { storableRequest, unstorableReason } from "../src/http/storableText.ts";
import { startGateway, type TestGateway } from "./startGateway.ts";

const detailOf = async (res: Response): Promise<string> =>
  ((await res.json()) as { detail: string }).detail;
const req = (url: string, params: Record<string, string> = {}) => ({ originalUrl: url, params });
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe("invalid-request");
    return (err as DomainError).message;
  }
  throw new Error("not refused");
};

describe("the text rule", () => {
  it("refuses U+0000 and unpaired surrogates, and nothing else", () => {
    expect(unstorableReason("a\0b")).toBe("contains U+0000");
    expect(unstorableReason("sur\ud800x")).toBe("contains an unpaired surrogate");
    expect(unstorableReason("\udc00")).toBe("contains an unpaired surrogate");
    for (const fine of ["", "plain", "émoji 🎉 \ud83c\udf89", "\u0001\u001f\u007f", "\uFFFD"])
      expect(unstorableReason(fine)).toBeNull();
  });

  it("names the body field at any depth, user-defined keys and values included", () => {
    expect(refusal(() => storableRequest(req("/"), {}, { name: "nul\0name" }))).toBe(
      "'name' contains U+0000, which cannot be stored",
    );
    const nested = { version: { invocation_params: { stop: ["ok", "a\0"] } } };
    expect(refusal(() => storableRequest(req("/"), {}, nested))).toMatch(
      /^'version\.invocation_params\.stop\[1\]' contains U\+0000/,
    );
    const key = { version: { provider_params: { "bad\0key": 1 } } };
    expect(refusal(() => storableRequest(req("/"), {}, key))).toMatch(
      /^a field name in 'version\.provider_params' contains U\+0000/,
    );
    expect(refusal(() => storableRequest(req("/"), {}, ["\ud800"]))).toMatch(
      /^'\[0\]' contains an unpaired surrogate/,
    );
    expect(refusal(() => storableRequest(req("/"), {}, "\0"))).toMatch(
      /^the request body contains/,
    );
  });

  it("refuses what a body read from its text got through a \\u escape, and only that", () => {
    const parsed = (text: string) => {
      const body = JSON.parse(text) as object;
      rememberBodyText(body, text);
      return body;
    };
    expect(refusal(() => storableRequest(req("/"), {}, parsed('{"a":["ok","x\\u0000"]}')))).toBe(
      "'a[1]' contains U+0000, which cannot be stored",
    );
    expect(refusal(() => storableRequest(req("/"), {}, parsed('{"\\ud800":1}')))).toMatch(
      /^a field name in 'the request body' contains an unpaired surrogate/,
    );
    for (const fine of ['{"a":"\\u00e9 \\ud83c\\udf89"}', '{"a":["é 🎉",{"b":"\\n"}]}'])
      expect(storableRequest(req("/"), {}, parsed(fine)).body).toEqual(JSON.parse(fine));
  });

  it("walks a body nested deeper than the call stack without overflowing", () => {
    let deep: unknown = "ok";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => storableRequest(req("/"), {}, deep)).not.toThrow();
  });

  it("decodes the query strictly: U+0000 and bytes that are not UTF-8 are refused by name", () => {
    expect(
      refusal(() => storableRequest(req("/v2/tags?space_id=x&name=%00x"), {}, undefined)),
    ).toBe("query parameter 'name' contains U+0000, which cannot be stored");
    // An encoded surrogate is not UTF-8; Express's own parser would hand on U+FFFD instead.
    expect(refusal(() => storableRequest(req("/v2/tags?name=%ED%A0%80"), {}, undefined))).toBe(
      "query parameter 'name' is not UTF-8, which cannot be stored",
    );
    expect(refusal(() => storableRequest(req("/v2/tags?name=%FF"), {}, undefined))).toMatch(
      /not UTF-8/,
    );
    expect(refusal(() => storableRequest(req("/v2/tags?na%00me=x"), {}, undefined))).toMatch(
      /^a query parameter name contains U\+0000/,
    );
  });

  it("reads the query as Express's simple parser would otherwise", () => {
    const { query } = storableRequest(
      req("/v2/x?a=1&a=2&b=x+y%20z&c&__proto__=p&e=%zz&f=%C3%A9"),
      {},
      undefined,
    );
    expect(Object.entries(query)).toEqual([
      ["a", ["1", "2"]],
      ["b", "x y z"],
      ["c", ""],
      ["__proto__", "p"],
      ["e", "%zz"],
      ["f", "é"],
    ]);
    expect(Object.getPrototypeOf(query)).toBeNull();
  });

  it("checks path parameters and the headers it is given", () => {
    expect(refusal(() => storableRequest(req("/", { tag_id: "ab\0c" }), {}, undefined))).toBe(
      "path parameter 'tag_id' contains U+0000, which cannot be stored",
    );
    expect(
      refusal(() => storableRequest(req("/"), { authorization: "Bearer a\0" }, undefined)),
    ).toMatch(/^header 'authorization' contains U\+0000/);
  });
});

describe("the gateway applies it to every operation before anything runs", () => {
  let gw: TestGateway;
  type Recorded = ApiRequest<"list_tags"> | ApiRequest<"create_tag"> | ApiRequest<"get_tag">;
  const calls: Recorded[] = [];
  const record = async (r: Recorded) => {
    calls.push(r);
    return { status: 200, body: { tags: [] } };
  };
  const auth = { authorization: "Bearer ak-alice" };

  beforeAll(async () => {
    gw = await startGateway({ list_tags: record, create_tag: record, get_tag: record });
  });
  afterAll(() => gw.close());

  const send = (path: string, init: RequestInit = {}) =>
    fetch(gw.url + path, { ...init, headers: { ...auth, ...init.headers } });

  it("answers a 400 Problem naming the field, and the handler never runs", async () => {
    const res = await send("/v2/tags", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "sur\ud800x", space_id: "U3BhY2U6eA==" }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await detailOf(res)).toBe(
      "'name' contains an unpaired surrogate, which cannot be stored",
    );
    const query = await send("/v2/tags?name=%00x");
    expect(await detailOf(query)).toMatch(/^query parameter 'name'/);
    const surrogate = await send("/v2/tags/abc%ED%A0%80");
    expect([surrogate.status, await detailOf(surrogate)]).toEqual([
      400,
      "path parameter 'abc%ED%A0%80' is not UTF-8, which cannot be stored",
    ]);
    const path = await send("/v2/tags/abc%00def");
    expect([path.status, await detailOf(path)]).toEqual([
      400,
      "path parameter 'tag_id' contains U+0000, which cannot be stored",
    ]);
    expect(calls).toEqual([]);
  });

  it("refuses a JSON body whose bytes are not UTF-8 (400) or that is declared in another charset (415)", async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"name":"a'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    const bad = await send("/v2/tags", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bytes,
    });
    expect([bad.status, await detailOf(bad)]).toEqual([400, "the request body is not valid UTF-8"]);
    const utf16 = await send("/v2/tags", {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-16le" },
      body: Buffer.from('{"name":"a"}', "utf16le"),
    });
    expect(utf16.status).toBe(415);
    expect(calls).toEqual([]);
  });

  it("passes well-formed text through unchanged", async () => {
    const res = await send(`/v2/tags?name=${encodeURIComponent("é🎉")}`);
    expect(res.status).toBe(200);
    expect(calls.at(-1)?.query).toEqual({ name: "é🎉" });
  });
});
