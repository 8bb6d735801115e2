import { gzipSync } from "node:zlib";
import { Metadata } from "@grpc/grpc-js";
import { DomainError, encodeId, fixedClock, toGrpcError } from "@argus/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Handler } from "../src/http/handler.ts";
import { startGateway, type TestGateway } from "./startGateway.ts";

interface SpaceRow {
  id: string;
  name: string;
  description: string;
  created_at: string;
  is_private: boolean;
}

// 120 spaces ordered by id, the keyset the handler pages through.
const SPACES: SpaceRow[] = Array.from({ length: 120 }, (_, i) => ({
  id: encodeId("Space", `0192f4a0-0000-7000-8000-${String(i).padStart(12, "0")}`),
  name: `Space ${String(i).padStart(3, "0")}${i % 2 ? " odd" : ""}`,
  description: "",
  created_at: "2024-01-01T00:00:00.000Z",
  is_private: false,
}));

// The keyset position is the zero-padded index, as a service would use its sort key.
const position = (s: SpaceRow): string => String(SPACES.indexOf(s)).padStart(3, "0");

const listSpaces: Handler<"list_spaces"> = async ({ query, page }) => {
  const name = typeof query.name === "string" ? query.name.toLowerCase() : "";
  const matching = SPACES.filter(
    (s) => s.name.toLowerCase().includes(name) && position(s) > page.after,
  );
  const spaces = matching.slice(0, page.limit);
  const more = matching.length > page.limit;
  return { status: 200, body: { spaces }, nextAfter: more ? position(spaces.at(-1)!) : "" };
};

const createSpace: Handler<"create_space"> = async ({ body: b }) => {
  if (b.name === "taken")
    throw toGrpcError(new DomainError("resource-conflict", "a space named 'taken' exists"));
  if (b.name === "crash") throw new Error("database password is hunter2");
  // A backing service that is not there: grpc-js's UNAVAILABLE, without a problem trailer.
  if (b.name === "unreachable")
    throw Object.assign(new Error("14 UNAVAILABLE: No connection established"), {
      code: 14,
      details: "No connection established",
      metadata: new Metadata(),
    });
  // What a service answers when its Postgres went away mid-request (a restart).
  if (b.name === "db-down")
    throw toGrpcError(Object.assign(new Error("terminating connection"), { code: "57P01" }));
  return {
    status: 201,
    body: {
      ...SPACES[0]!,
      name: b.name,
      description: b.description ?? "",
      is_private: b.is_private ?? false,
    },
  };
};

const getSpace: Handler<"get_space"> = async ({ params }) => {
  const found = SPACES.find((s) => s.id === params.space_id);
  if (!found) throw new DomainError("resource-not-found", "space not found");
  return { status: 200, body: found };
};

const handlers = { list_spaces: listSpaces, create_space: createSpace, get_space: getSpace };
const ORG_ID = encodeId("Organization", "0192f4a0-0000-7000-8000-00000000000a");
const auth = (key = "ak-alice") => ({ authorization: `Bearer ${key}` });
const json = { "content-type": "application/json" };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(handlers);
});
afterAll(() => gw.close());

async function call(
  path: string,
  init: RequestInit = {},
): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(gw.url + path, init);
  const text = await res.text();
  return { res, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

function expectProblem(
  res: Response,
  body: Record<string, unknown>,
  status: number,
  fragment: string,
  instance: string,
): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(body).toMatchObject({ status, type: `https://argus.dev/errors#${fragment}`, instance });
  expect(typeof body.title).toBe("string");
  expect((body.title as string).length).toBeGreaterThan(0);
  expect(typeof body.detail).toBe("string");
  expect(body.request_id).toBe(res.headers.get("x-request-id"));
}

const createBody = (extra: Record<string, unknown>) =>
  JSON.stringify({ name: "Research", organization_id: ORG_ID, ...extra });
const create = (extra: Record<string, unknown>) =>
  call("/v2/spaces", { method: "POST", headers: { ...auth(), ...json }, body: createBody(extra) });

describe("authentication", () => {
  it("answers a request without a key with a complete 401 Problem", async () => {
    const { res, body } = await call("/v2/spaces");
    expectProblem(res, body, 401, "authentication-required", "/v2/spaces");
    expect(body.title).toBe("Authentication required");
    expect(body.detail).toMatch(/Authorization: Bearer/);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("answers an unknown key and a malformed header with 401", async () => {
    const unknown = await call("/v2/spaces?limit=5", { headers: auth("ak-mallory") });
    expectProblem(unknown.res, unknown.body, 401, "authentication-required", "/v2/spaces");
    expect(unknown.body).toMatchObject({
      title: "Authentication required",
      detail: "the API key is not valid",
    });
    const basic = await call("/v2/spaces", {
      headers: { authorization: "Basic YWxpY2U6c2VjcmV0" },
    });
    expectProblem(basic.res, basic.body, 401, "authentication-required", "/v2/spaces");
  });
});

describe("routing", () => {
  it("answers an unknown route with a 404 Problem", async () => {
    const { res, body } = await call("/v2/nothing-here", { headers: auth() });
    expectProblem(res, body, 404, "resource-not-found", "/v2/nothing-here");
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const { res, body } = await call("/v2/spaces", { method: "DELETE", headers: auth() });
    expectProblem(res, body, 405, "method-not-allowed", "/v2/spaces");
    expect(res.headers.get("allow")).toBe("GET, POST, HEAD");
  });

  it("answers a malformed path id with 404 and a handler's DomainError with its type", async () => {
    const garbage = await call("/v2/spaces/not-an-id!", { headers: auth() });
    expectProblem(garbage.res, garbage.body, 404, "resource-not-found", "/v2/spaces/not-an-id!");
    const missing = encodeId("Space", "0192f4a0-0000-7000-8000-ffffffffffff");
    const gone = await call(`/v2/spaces/${missing}`, { headers: auth() });
    expectProblem(gone.res, gone.body, 404, "resource-not-found", `/v2/spaces/${missing}`);
    expect(gone.body.detail).toBe("space not found");
    const found = await call(`/v2/spaces/${SPACES[7]!.id}`, { headers: auth() });
    expect([found.res.status, found.body.name]).toEqual([200, "Space 007 odd"]);
  });

  it("keeps a sane incoming request id and replaces any other", async () => {
    const kept = await call("/v2/spaces", { headers: { "x-request-id": "client-123" } });
    expect([kept.res.headers.get("x-request-id"), kept.body.request_id]).toEqual([
      "client-123",
      "client-123",
    ]);
    const replaced = await call("/v2/spaces", { headers: { "x-request-id": "<script>" } });
    expect(replaced.res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("request bodies", () => {
  it("answers malformed JSON with 400", async () => {
    const { res, body } = await call("/v2/spaces", {
      method: "POST",
      headers: { ...auth(), ...json },
      body: '{"name": ',
    });
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
    expect(body.detail).toBe("the request body is not valid JSON");
  });

  it("answers a body over the limit with 413", async () => {
    const { res, body } = await create({ description: "x".repeat(5000) });
    expectProblem(res, body, 413, "payload-too-large", "/v2/spaces");
  });

  it("answers a non-JSON body with 415", async () => {
    const { res, body } = await call("/v2/spaces", {
      method: "POST",
      headers: { ...auth(), "content-type": "text/plain" },
      body: createBody({}),
    });
    expectProblem(res, body, 415, "unsupported-media-type", "/v2/spaces");
  });

  const post = (headers: Record<string, string>, body: string | Uint8Array) =>
    call("/v2/spaces", { method: "POST", headers: { ...auth(), ...headers }, body });

  it("reads UTF-8 bodies, ASCII or not, declared as such or not", async () => {
    for (const [type, name] of [
      ["application/json", "Research"],
      ["application/json; charset=utf-8", "Recherche économique 中文 🎉"],
      ['application/json; Charset="UTF-8"', "Forschung"],
      ["application/vnd.argus+json", "Vendor type"],
    ] as const) {
      const { res, body } = await post({ "content-type": type }, createBody({ name }));
      expect([res.status, body.name], type).toEqual([201, name]);
    }
  });

  it("ignores a byte order mark", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    for (const name of ["Plain", "Économie"]) {
      const { res, body } = await post(
        json,
        Buffer.concat([bom, Buffer.from(createBody({ name }))]),
      );
      expect([res.status, body.name]).toEqual([201, name]);
    }
  });

  it("answers 415 for another charset and 400 for bytes that are not UTF-8", async () => {
    for (const charset of ["latin1", "utf-16", "utf8"]) {
      const { res, body } = await post(
        { "content-type": `application/json; charset=${charset}` },
        createBody({}),
      );
      expectProblem(res, body, 415, "unsupported-media-type", "/v2/spaces");
      expect(body.detail).toBe(`the request body must be UTF-8, not ${charset}`);
    }
    const latin1 = Buffer.from(createBody({ name: "café" }), "latin1");
    const { res, body } = await post(json, latin1);
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
    expect(body.detail).toBe("the request body is not valid UTF-8");
  });

  it("answers 400 for a body that is JSON but neither an object nor an array", async () => {
    for (const text of ['"Research"', "42", "null", "   ", " \n true"]) {
      const { res, body } = await post(json, text);
      expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
      expect(body.detail, text).toBe("the request body is not valid JSON");
    }
  });

  it("inflates a compressed body, and counts the limit on what it inflates to", async () => {
    const zipped = await post(
      { ...json, "content-encoding": "gzip" },
      gzipSync(createBody({ name: "Zipped" })),
    );
    expect([zipped.res.status, zipped.body.name]).toEqual([201, "Zipped"]);
    const bomb = await post(
      { ...json, "content-encoding": "gzip" },
      gzipSync(createBody({ description: " ".repeat(1 << 20) })),
    );
    expectProblem(bomb.res, bomb.body, 413, "payload-too-large", "/v2/spaces");
  });

  it("answers a missing body with 400", async () => {
    const { res, body } = await call("/v2/spaces", { method: "POST", headers: auth() });
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
  });
});

describe("create_space validation", () => {
  it("creates with the documented fields", async () => {
    const { res, body } = await create({ description: "d", is_private: true });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ name: "Research", description: "d", is_private: true });
  });

  it.each(["id", "created_at", "color"])("rejects the field %s with 400", async (field) => {
    const { res, body } = await create({ [field]: "x" });
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
    expect(body.detail).toBe(`'${field}' is not an accepted field`);
  });

  it("accepts a 255-character name and rejects 256", async () => {
    expect((await create({ name: "n".repeat(255) })).res.status).toBe(201);
    const { res, body } = await create({ name: "n".repeat(256) });
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
    expect(body.detail).toBe("'name' must be at most 255 characters");
  });

  it("accepts a 1000-character description and rejects 1001", async () => {
    expect((await create({ description: "d".repeat(1000) })).res.status).toBe(201);
    const { res, body } = await create({ description: "d".repeat(1001) });
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
  });

  it("maps a service's gRPC error to its Problem", async () => {
    const { res, body } = await create({ name: "taken" });
    expectProblem(res, body, 409, "resource-conflict", "/v2/spaces");
    expect(body.detail).toBe("a space named 'taken' exists");
  });

  it("answers a service whose database is away with 503, Retry-After and a Problem, not 500", async () => {
    const { res, body } = await create({ name: "db-down" });
    expectProblem(res, body, 503, "service-unavailable", "/v2/spaces");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(body.detail).toBe("a dependency of the service is unavailable; retry later");
  });

  it("answers an unreachable backing service with 503 and Retry-After, and logs where it failed", async () => {
    const { res, body } = await create({ name: "unreachable" });
    expectProblem(res, body, 503, "service-unavailable", "/v2/spaces");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(JSON.stringify(body)).not.toContain("No connection established");
    const logged = gw.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "backing service failed");
    expect(logged).toMatchObject({
      level: "warn",
      request_id: body.request_id,
      type: "service-unavailable",
      cause: "14 UNAVAILABLE: No connection established",
    });
  });

  it("answers an internal error with a bare 500 and logs it with the request id", async () => {
    const { res, body } = await create({ name: "crash" });
    expectProblem(res, body, 500, "internal-error", "/v2/spaces");
    expect(JSON.stringify(body)).not.toMatch(/hunter2|at .*\.ts/);
    const logged = gw.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "unhandled error");
    expect(logged).toMatchObject({ level: "error", request_id: body.request_id });
    expect(String(logged?.error)).toContain("hunter2");
  });
});

describe("pagination", () => {
  const list = (query: string, key = "ak-alice") =>
    call(`/v2/spaces?${query}`, { headers: auth(key) });

  it("pages 120 spaces as 50, 50, 20 and ends without a cursor", async () => {
    const sizes: number[] = [];
    const seen: string[] = [];
    let cursor: string | undefined;
    let last: Record<string, unknown>;
    do {
      const { res, body } = await list(
        `limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.status).toBe(200);
      const spaces = body.spaces as SpaceRow[];
      sizes.push(spaces.length);
      seen.push(...spaces.map((s) => s.id));
      last = body.pagination as Record<string, unknown>;
      cursor = last.next_cursor as string | undefined;
      if (cursor) expect(last.has_more).toBe(true);
    } while (cursor);
    expect(sizes).toEqual([50, 50, 20]);
    expect(last).toEqual({ has_more: false });
    expect(seen).toEqual(SPACES.map((s) => s.id));
  });

  it("defaults to 50 per page", async () => {
    const { body } = await list("");
    expect((body.spaces as unknown[]).length).toBe(50);
  });

  it.each(["0", "101", "-1", "ten"])("answers limit=%s with 400", async (limit) => {
    const { res, body } = await list(`limit=${limit}`);
    expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
  });

  it("keeps a cursor valid when only the limit changes", async () => {
    const first = await list("name=odd&limit=10");
    const cursor = (first.body.pagination as { next_cursor: string }).next_cursor;
    const next = await list(`name=odd&limit=25&cursor=${encodeURIComponent(cursor)}`);
    expect(next.res.status).toBe(200);
    expect((next.body.spaces as SpaceRow[])[0]!.name).toBe("Space 021 odd");
  });

  it("answers a tampered or foreign cursor with 400", async () => {
    const first = await list("name=odd&limit=10");
    const cursor = (first.body.pagination as { next_cursor: string }).next_cursor;
    const tampered = cursor.slice(0, 3) + (cursor[3] === "A" ? "B" : "A") + cursor.slice(4);
    for (const query of [
      `name=odd&cursor=${encodeURIComponent(tampered)}`,
      `name=Space&cursor=${encodeURIComponent(cursor)}`,
      `cursor=junk`,
    ]) {
      const { res, body } = await list(query);
      expectProblem(res, body, 400, "invalid-request", "/v2/spaces");
    }
  });
});

describe("rate limiting", () => {
  it("answers 429 with an integer Retry-After while another key is unaffected", async () => {
    // Pinned: the buckets refill only when the gateway's Clock moves.
    const clock = fixedClock(new Date("2026-01-01T00:00:00Z"));
    const limited = await startGateway(handlers, {
      config: { rateLimitPerSecond: 1, rateLimitBurst: 2 },
      clock,
    });
    try {
      const get = (key: string) =>
        fetch(`${limited.url}/v2/spaces?limit=1`, { headers: auth(key) });
      expect((await get("ak-alice")).status).toBe(200);
      expect((await get("ak-alice")).status).toBe(200);
      const refused = await get("ak-alice");
      const body = (await refused.json()) as Record<string, unknown>;
      expectProblem(refused, body, 429, "rate-limit-exceeded", "/v2/spaces");
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(0);
      expect((await get("ak-bob")).status).toBe(200);
      clock.advance(999);
      expect((await get("ak-alice")).status).toBe(429);
      clock.advance(1); // one token back, a second after the bucket was spent
      expect((await get("ak-alice")).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("operational routes", () => {
  it("serves health, readiness, the document and its docs page without a key", async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
    const spec = await fetch(`${gw.url}/v2/spec.yaml`);
    expect(spec.headers.get("content-type")).toMatch(/yaml/);
    expect(await spec.text()).toContain("operationId: create_space");
    const docs = await fetch(`${gw.url}/v2/docs`);
    const html = await docs.text();
    expect(docs.headers.get("content-type")).toMatch(/text\/html/);
    expect(html).toContain("create_space");
    expect(html).not.toMatch(/<script|https?:\/\/(?!argus\.dev|localhost)/);
  });

  it("answers readiness with 503 when not ready", async () => {
    const notReady = await startGateway(handlers, { ready: async () => false });
    try {
      const res = await fetch(`${notReady.url}/readyz`);
      expectProblem(
        res,
        (await res.json()) as Record<string, unknown>,
        503,
        "service-unavailable",
        "/readyz",
      );
    } finally {
      await notReady.close();
    }
  });
});
