import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDEMPOTENCY_KEY_PATTERN, type ForwardedKey } from "@argus/platform";
import type { Handler } from "../src/http/handler.ts";
import {
  canonicalJson,
  keepsAnswer,
  requestFingerprint,
  type Begun,
  type Completion,
  type IdempotencyKeys,
  type KeyedRequest,
} from "../src/http/idempotentRequests.ts";
import { HTTP_METHODS, loadDocument, resolve, type Parameter } from "../src/openapi/document.ts";
import { compileOperations } from "../src/openapi/operations.ts";
import { startGateway, type TestGateway } from "./startGateway.ts";

const doc = loadDocument().document;
const ops = compileOperations(doc);

/**
 * Writes that do not take an Idempotency-Key, each with why a retry of it is safe as it is.
 * Every other POST, PUT, PATCH and DELETE must declare the header.
 */
const NATURALLY_IDEMPOTENT: Record<string, string> = {
  list_spans: "a read (POST for its filter body)",
  list_traces: "a read (POST for its filter body)",
  search_dataset_examples: "a read",
  search_experiment_runs: "a read",
  annotate_spans: "sets the annotations' values",
  annotate_dataset_examples: "sets the annotations' values",
  annotate_experiment_runs: "sets the annotations' values",
  annotate_annotation_queue_record: "sets the record's annotations",
  assign_annotation_queue_record: "sets the record's assignees",
  cancel_task_run: "a cancelled run stays cancelled",
  revoke_api_key: "revoking a revoked key is a no-op (spec)",
  set_prompt_version_label: "moves the label to the version",
};
const isDelete = (id: string) => id.startsWith("delete_") || id.startsWith("remove_");
const isUpdate = (id: string) => id.startsWith("update_");
const isTagAttach = (id: string) => /^add_\w+_tags$/.test(id);

describe("the document declares Idempotency-Key", () => {
  it("on every write that is not naturally idempotent, and on no read", () => {
    const undeclared: string[] = [];
    for (const op of ops) {
      if (op.method === "get") {
        expect([op.operationId, op.acceptsIdempotencyKey]).toEqual([op.operationId, false]);
        continue;
      }
      const id = op.operationId;
      // Deletes and removals are idempotent by the rule (the second is a 404 or a no-op), so
      // are updates setting fields (update_dataset_examples aside: it may create a version)
      // and tag attachments (spec: "the request can be retried").
      const natural =
        id in NATURALLY_IDEMPOTENT ||
        isDelete(id) ||
        (isUpdate(id) && id !== "update_dataset_examples") ||
        isTagAttach(id);
      if (natural) expect([id, op.acceptsIdempotencyKey]).toEqual([id, false]);
      else if (!op.acceptsIdempotencyKey) undeclared.push(id);
    }
    expect(undeclared).toEqual([]);
  });

  it("with the limits the services check: 1 to 255 printable ASCII characters", () => {
    const param = resolve<Parameter>(doc, { $ref: "#/components/parameters/IdempotencyKey" });
    expect(param).toMatchObject({ name: "Idempotency-Key", in: "header", required: false });
    const create = ops.find((o) => o.operationId === "create_tag")!;
    const cases = ["x", "~".repeat(255), " !~", "", "k".repeat(256), "tab\t", "\u007f", "é"];
    for (const key of cases) {
      const edge = (() => {
        try {
          return create.idempotencyKey(key) === key;
        } catch {
          return false;
        }
      })();
      expect([JSON.stringify(key), edge]).toEqual([
        JSON.stringify(key),
        IDEMPOTENCY_KEY_PATTERN.test(key),
      ]);
    }
    expect(IDEMPOTENCY_KEY_PATTERN.test("~".repeat(255))).toBe(true);
    expect(IDEMPOTENCY_KEY_PATTERN.test("~".repeat(256))).toBe(false);
  });

  it("every operation that declares it documents its 409 and 422", () => {
    for (const op of ops.filter((o) => o.acceptsIdempotencyKey)) {
      const responses = doc.paths[op.path]![op.method]!.responses ?? {};
      expect([op.operationId, "409" in responses, "422" in responses]).toEqual([
        op.operationId,
        true,
        true,
      ]);
    }
    expect(HTTP_METHODS).toContain("post");
  });
});

describe("the fingerprint", () => {
  const base = {
    method: "post",
    route: "/v2/tags",
    params: {},
    query: {},
    body: { a: 1, b: [1, 2] },
  };
  it("ignores key order; a method, route, parameter, query or body value changes it", () => {
    const f = requestFingerprint(base);
    expect(requestFingerprint({ ...base, body: { b: [1, 2], a: 1 } })).toBe(f);
    expect(requestFingerprint({ ...base, method: "POST" })).toBe(f);
    for (const other of [
      { ...base, method: "patch" },
      { ...base, route: "/v2/spaces" },
      { ...base, params: { id: "x" } },
      { ...base, query: { q: "1" } },
      { ...base, body: { a: 1, b: [2, 1] } },
      { ...base, body: { a: "1", b: [1, 2] } },
      { ...base, body: undefined },
    ])
      expect(requestFingerprint(other)).not.toBe(f);
    expect(canonicalJson({ z: { y: 1, x: [{ b: 2, a: 1 }] }, u: undefined })).toBe(
      '{"z":{"x":[{"a":1,"b":2}],"y":1}}',
    );
  });

  it("answers kept for replays: not 408, 409, 429 or any 5xx", () => {
    expect([200, 201, 204, 400, 403, 404, 422].map(keepsAnswer)).toEqual(Array(7).fill(true));
    expect([408, 409, 429, 500, 503, 504].map(keepsAnswer)).toEqual(Array(6).fill(false));
  });
});

/** identity's record, in memory: enough to see what the pipeline asks of it. */
function memoryKeys() {
  const begun: KeyedRequest[] = [];
  const completed: Completion[] = [];
  const kept = new Map<string, { fingerprint: string; answer?: Completion }>();
  const keys: IdempotencyKeys = {
    async begin(req): Promise<Begun> {
      begun.push(req);
      const at = kept.get(`${req.scope}|${req.key}`);
      if (!at) {
        kept.set(`${req.scope}|${req.key}`, { fingerprint: req.fingerprint });
        return { kind: "started", attempt: "a" };
      }
      if (at.fingerprint !== req.fingerprint) return { kind: "mismatch" };
      if (!at.answer || at.answer === "release") return { kind: "in_flight" };
      return { kind: "replay", ...at.answer };
    },
    async complete(req, _attempt, completion) {
      completed.push(completion);
      if (completion === "release") kept.delete(`${req.scope}|${req.key}`);
      else kept.get(`${req.scope}|${req.key}`)!.answer = completion;
    },
  };
  return { keys, begun, completed };
}

describe("the pipeline", () => {
  const memory = memoryKeys();
  const forwarded: (ForwardedKey | undefined)[] = [];
  let gw: TestGateway;
  let n = 0;
  const createTag: Handler<"create_tag"> = async (req) => {
    forwarded.push(req.forwardedKey);
    n++;
    return { status: 201, body: { id: `t${n}`, name: req.body.name } };
  };
  const deleteTag: Handler<"delete_tag"> = async (req) => {
    forwarded.push(req.forwardedKey);
    return { status: 204 };
  };
  beforeAll(async () => {
    gw = await startGateway(
      { create_tag: createTag, delete_tag: deleteTag },
      { idempotencyKeys: memory.keys },
    );
  });
  afterAll(() => gw?.close());
  const send = (method: string, path: string, body?: unknown, key?: string) =>
    fetch(gw.url + path, {
      method,
      headers: {
        authorization: "Bearer ak-alice",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const tag = { name: "t", space_id: "U3BhY2U6MDE5MDAwMDAtMDAwMC03MDAwLTgwMDAtMDAwMDAwMDAwMDAw" };

  it("asks identity only for requests that carry the header, on operations that declare it", async () => {
    const before = memory.begun.length;
    expect((await send("POST", "/v2/tags", tag)).status).toBe(201);
    expect(forwarded.at(-1)).toBeUndefined();
    // delete_tag does not declare the header: it is ignored, not forwarded.
    const del = await send(
      "DELETE",
      "/v2/tags/VGFnOjAxOTAwMDAwLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDAwMA==",
      undefined,
      "k",
    );
    expect(del.status).toBe(204);
    expect(forwarded.at(-1)).toBeUndefined();
    expect(memory.begun.length).toBe(before);
  });

  it("forwards the key, keeps the answer and replays it with Idempotent-Replayed", async () => {
    const first = await send("POST", "/v2/tags", tag, "k1");
    const text = await first.text();
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(forwarded.at(-1)).toMatchObject({
      key: "k1",
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(memory.begun.at(-1)).toMatchObject({ key: "k1", scope: "acc-1/user/alice" });
    const calls = n;
    const again = await send("POST", "/v2/tags", tag, "k1");
    expect([again.status, await again.text(), again.headers.get("idempotent-replayed")]).toEqual([
      201,
      text,
      "true",
    ]);
    expect(n).toBe(calls);
    const other = await send("POST", "/v2/tags", { ...tag, name: "u" }, "k1");
    expect(other.status).toBe(422);
    expect(other.headers.get("content-type")).toMatch(/problem\+json/);
  });

  it("a malformed key is 400 before anything runs", async () => {
    const calls = n;
    const res = await send("POST", "/v2/tags", tag, "k".repeat(256));
    expect(res.status).toBe(400);
    expect(n).toBe(calls);
  });
});
