import { DomainError, encodeId, toGrpcError } from "@argus/platform";
import type {
  Dataset,
  DeleteExamplesRequest,
  Example,
  ExampleInput,
  ListExamplesRequest,
  SearchExamplesRequest,
  UpdateExamplesRequest,
} from "@argus/proto/dataset/v1/dataset";
import { describe, expect, it } from "vitest";
import { JsonObjectText } from "../src/http/handler.ts";
import { loadDocument } from "../src/openapi/document.ts";
import { compileOperations } from "../src/openapi/operations.ts";
import { withMember } from "../src/http/respond.ts";
import {
  NO_EXAMPLE,
  datasetHandlers,
  exampleText,
  exampleUuid,
  examplesText,
} from "../src/routes/datasets.ts";
import { AT, LATER, testConfig, uuid, validation } from "./startGateway.ts";
import { routesOnRecording } from "./recordingBackend.ts";

const DATASET = uuid(1);
const SPACE = uuid(2);
const V1 = uuid(3);
const V2 = uuid(4);
const pub = {
  dataset: encodeId("Dataset", DATASET),
  space: encodeId("Space", SPACE),
  v1: encodeId("DatasetVersion", V1),
  v2: encodeId("DatasetVersion", V2),
  example: (n: number) => encodeId("DatasetExample", uuid(100 + n)),
};
const MiB = 1024 * 1024;

const dataset = (over: Partial<Dataset> = {}): Dataset => ({
  id: DATASET,
  spaceId: SPACE,
  name: "golden",
  createdAt: AT,
  updatedAt: LATER,
  versions: [],
  ...over,
});
const example = (n: number, fieldsJson: string): Example => ({
  id: uuid(100 + n),
  createdAt: AT,
  updatedAt: LATER,
  fieldsJson,
  annotationsJson: "",
});

const SECRET = "c".repeat(32);
/** The public dataset, as every answer of these tests shows it (its versions aside). */
const publicDataset = {
  id: pub.dataset,
  name: "golden",
  space_id: pub.space,
  created_at: AT,
  updated_at: LATER,
};

const { calls, answers, call } = routesOnRecording((fake) => datasetHandlers(fake, SECRET));

describe("the document", () => {
  const ops = compileOperations(loadDocument().document);
  it("serves the datasets group with the SDK's operation ids", () => {
    expect(
      ops
        .filter((o) => o.path.startsWith("/v2/datasets") && !o.path.endsWith("/tags"))
        .map((o) => [o.operationId, o.method, o.path, o.paginated, o.maxBodyBytes]),
    ).toEqual([
      ["list_datasets", "get", "/v2/datasets", true, undefined],
      ["create_dataset", "post", "/v2/datasets", false, 8 * MiB],
      ["get_dataset", "get", "/v2/datasets/{dataset_id}", false, undefined],
      ["delete_dataset", "delete", "/v2/datasets/{dataset_id}", false, undefined],
      ["update_dataset", "patch", "/v2/datasets/{dataset_id}", false, undefined],
      ["list_dataset_examples", "get", "/v2/datasets/{dataset_id}/examples", true, undefined],
      ["insert_dataset_examples", "post", "/v2/datasets/{dataset_id}/examples", false, 8 * MiB],
      ["delete_dataset_examples", "delete", "/v2/datasets/{dataset_id}/examples", false, 8 * MiB],
      ["update_dataset_examples", "patch", "/v2/datasets/{dataset_id}/examples", false, 8 * MiB],
      [
        "search_dataset_examples",
        "post",
        "/v2/datasets/{dataset_id}/examples/search",
        false,
        8 * MiB,
      ],
      [
        "annotate_dataset_examples",
        "post",
        "/v2/datasets/{dataset_id}/examples/annotate",
        false,
        8 * MiB,
      ],
    ]);
  });

  const failure = validation({ dataset_id: pub.dataset });

  it("pages examples by up to 500 and writes up to 1000 of them", () => {
    expect(failure("list_dataset_examples", { query: { limit: "500" } })).toEqual(["ok"]);
    expect(failure("list_dataset_examples", { query: { limit: "501" } })[0]).toBe(
      "invalid-request",
    );
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ q: i }));
    expect(failure("insert_dataset_examples", { body: { examples: many(1000) } })).toEqual(["ok"]);
    expect(failure("insert_dataset_examples", { body: { examples: many(1001) } })).toEqual([
      "validation-error",
      "'examples' must contain at most 1000 items",
    ]);
    expect(failure("insert_dataset_examples", { body: { examples: [] } })[0]).toBe(
      "validation-error",
    );
  });

  it("refuses system fields and empty examples in the schema, with 422 naming the field", () => {
    const space = pub.space;
    expect(
      failure("create_dataset", { body: { name: "n", space_id: space, examples: [{ q: 1 }] } }),
    ).toEqual(["ok"]);
    for (const field of ["id", "created_at", "updated_at"])
      expect(
        failure("create_dataset", {
          body: { name: "n", space_id: space, examples: [{ q: 1 }, { q: 2, [field]: AT }] },
        }),
      ).toEqual(["validation-error", `'examples[1].${field}' is not an accepted field`]);
    expect(failure("insert_dataset_examples", { body: { examples: [{}] } })).toEqual([
      "validation-error",
      "'examples[0]' must have at least 1 field",
    ]);
    expect(failure("insert_dataset_examples", { body: { examples: [{ id: "x", q: 1 }] } })).toEqual(
      ["validation-error", "'examples[0].id' is not an accepted field"],
    );
    expect(failure("update_dataset_examples", { body: { examples: [{ id: "x" }] } })).toEqual([
      "ok",
    ]);
    expect(failure("update_dataset_examples", { body: { examples: [{ q: 1 }] } })).toEqual([
      "validation-error",
      "'id' is required in 'examples[0]'",
    ]);
    expect(
      failure("update_dataset_examples", { body: { examples: [{ id: "x", updated_at: AT }] } }),
    ).toEqual(["validation-error", "'examples[0].updated_at' is not an accepted field"]);
    expect(
      failure("create_dataset", { body: { name: "  ", space_id: space, examples: [{ q: 1 }] } }),
    ).toEqual(["validation-error", "'name' must not be blank"]);
    const newVersion = (name: string) =>
      failure("update_dataset_examples", { body: { examples: [{ id: "x" }], new_version: name } });
    expect(newVersion("")).toEqual(["ok"]);
    expect(newVersion(" v2 ")).toEqual(["ok"]);
    expect(newVersion(" \t")).toEqual(["validation-error", "'new_version' must not be blank"]);
    expect(failure("update_dataset", { body: { name: "n" } })).toEqual(["ok"]);
    expect(failure("update_dataset", { body: { name: "n", extra: 1 } })[0]).toBe(
      "validation-error",
    );
  });

  it("refuses repeated, empty and too many example ids on delete", () => {
    const body = (ids: string[]) => ({ body: { dataset_version_id: pub.v1, example_ids: ids } });
    expect(failure("delete_dataset_examples", body(["a", "b"]))).toEqual(["ok"]);
    expect(failure("delete_dataset_examples", body(["a", "a"]))[0]).toBe("validation-error");
    expect(failure("delete_dataset_examples", body([""]))[0]).toBe("validation-error");
    expect(failure("delete_dataset_examples", body([]))[0]).toBe("validation-error");
    const many = Array.from({ length: 1001 }, (_, i) => `e${i}`);
    expect(failure("delete_dataset_examples", body(many))[0]).toBe("validation-error");
    expect(failure("delete_dataset_examples", { body: { example_ids: ["a"] } })[0]).toBe(
      "validation-error",
    );
  });

  it("refuses a blank filter and an out-of-range search limit", () => {
    expect(failure("search_dataset_examples", { body: {} })).toEqual(["ok"]);
    expect(failure("search_dataset_examples", { body: undefined })).toEqual(["ok"]);
    expect(failure("search_dataset_examples", { body: { filter: "q = 1", limit: 500 } })).toEqual([
      "ok",
    ]);
    expect(failure("search_dataset_examples", { body: { filter: " \t" } })[0]).toBe(
      "validation-error",
    );
    expect(failure("search_dataset_examples", { body: { limit: 501 } })[0]).toBe(
      "validation-error",
    );
  });
});

describe("example JSON text", () => {
  const head = (n: number) =>
    `{"id":"${pub.example(n)}","created_at":"${AT}","updated_at":"${LATER}"`;

  it("joins the system fields and the service's field text without parsing it", () => {
    expect(exampleText(example(1, '{"q":"2+2?","a":4}'))).toBe(`${head(1)},"q":"2+2?","a":4}`);
    expect(exampleText(example(1, "{}"))).toBe(`${head(1)}}`);
    expect(exampleText(example(1, " { \n } "))).toBe(`${head(1)}}`);
    expect(exampleText(example(1, ""))).toBe(`${head(1)}}`);
    expect(exampleText(example(1, '{ "q" : 1 }'))).toBe(`${head(1)},"q" : 1 }`);
    expect(() => exampleText(example(1, "[1]"))).toThrow(/not an object/);
  });

  it("keeps unicode and nested values exactly as the service wrote them", () => {
    const fields = {
      "naïve key 🚀": '日本語 \u2028 "quoted" \\ back',
      nested: { list: [1, { deep: [null, true, 1.5e-7] }], empty: {} },
      "": "empty key",
    };
    const text = exampleText(example(2, JSON.stringify(fields)));
    expect(JSON.parse(text)).toEqual({
      id: pub.example(2),
      created_at: AT,
      updated_at: LATER,
      ...fields,
    });
  });

  it("renders a page, and the gateway adds pagination before the closing brace", () => {
    const page = examplesText([example(1, "{}"), example(2, '{"a":1}')]);
    expect(JSON.parse(page.text)).toEqual({
      examples: [
        { id: pub.example(1), created_at: AT, updated_at: LATER },
        { id: pub.example(2), created_at: AT, updated_at: LATER, a: 1 },
      ],
    });
    expect(withMember(page, "pagination", { has_more: false }).text).toBe(
      `${page.text.slice(0, -1)},"pagination":{"has_more":false}}`,
    );
    expect(withMember(new JsonObjectText("{}"), "p", 1).text).toBe('{"p":1}');
    expect(() => new JsonObjectText("[]")).toThrow();
  });

  it("renders 500 examples of 16 KiB each in a few milliseconds", () => {
    const big = JSON.stringify({ text: "x".repeat(16 * 1024), n: [1, 2, 3] });
    const examples = Array.from({ length: 500 }, (_, i) => example(i, big));
    const started = performance.now();
    const page = examplesText(examples);
    const elapsed = performance.now() - started;
    expect(page.text.length).toBeGreaterThan(500 * 16 * 1024);
    expect(elapsed).toBeLessThan(250);
  });
});

describe("ids", () => {
  it("accepts only the gateway's own spelling of an example id", () => {
    expect(exampleUuid(pub.example(1))).toBe(uuid(101));
    expect(exampleUuid(encodeId("DatasetExample", uuid(101).toUpperCase()))).toBeNull();
    expect(exampleUuid(encodeId("Dataset", uuid(101)))).toBeNull();
    expect(exampleUuid("not an id")).toBeNull();
    // The SDK's placeholder for an example of no dataset (what an experiment run may name).
    expect(exampleUuid("example_001")).toBeNull();
    expect(exampleUuid(uuid(101))).toBeNull();
  });

  it("sends internal uuids and answers public ids", async () => {
    answers.GetDataset = () =>
      dataset({
        versions: [
          { id: V2, datasetId: DATASET, name: "v2", createdAt: LATER, updatedAt: LATER },
          { id: V1, datasetId: DATASET, name: "v1", createdAt: AT, updatedAt: AT },
        ],
      });
    const res = await call("GET", `/v2/datasets/${pub.dataset}`);
    expect(calls).toEqual([{ rpc: "GetDataset", request: { id: DATASET } }]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      ...publicDataset,
      versions: [
        { id: pub.v2, name: "v2", dataset_id: pub.dataset, created_at: LATER, updated_at: LATER },
        { id: pub.v1, name: "v1", dataset_id: pub.dataset, created_at: AT, updated_at: AT },
      ],
    });
  });

  it("answers 404 for a dataset or version id that names none, without asking the service", async () => {
    const project = encodeId("Project", DATASET);
    expect((await call("GET", `/v2/datasets/${project}`)).status).toBe(404);
    expect((await call("DELETE", `/v2/datasets/${project}`)).status).toBe(404);
    const examples = `/v2/datasets/${pub.dataset}/examples`;
    const res = await call("GET", `${examples}?dataset_version_id=${encodeId("Dataset", V1)}`);
    expect([res.status, res.json.detail]).toEqual([404, "dataset version not found"]);
    const insert = await call("POST", `${examples}?dataset_version_id=${project}`, {
      examples: [{ q: 1 }],
    });
    expect(insert.status).toBe(404);
    const del = await call("DELETE", examples, {
      dataset_version_id: project,
      example_ids: [pub.example(1)],
    });
    expect(del.status).toBe(404);
    const space = await call("POST", "/v2/datasets", {
      name: "n",
      space_id: project,
      examples: [{ q: 1 }],
    });
    expect([space.status, space.json.detail]).toEqual([404, "space not found"]);
    expect(calls).toEqual([]);
  });

  it("passes the service's errors through as Problems", async () => {
    answers.UpdateDataset = () => {
      throw toGrpcError(new DomainError("resource-conflict", "name taken"));
    };
    const res = await call("PATCH", `/v2/datasets/${pub.dataset}`, { name: "taken" });
    expect([res.status, res.json.detail]).toEqual([409, "name taken"]);
  });
});

describe("example writes", () => {
  const write = (ids: number[], versionId = V1) => ({
    dataset: dataset(),
    versionId,
    exampleIds: ids.map((n) => uuid(100 + n)),
    examplePositions: [] as number[],
  });
  const result = (ids: number[], version = pub.v1) => ({
    ...publicDataset,
    dataset_version_id: version,
    example_ids: ids.map(pub.example),
  });

  it("creates a dataset from its examples' JSON text: 201 with the dataset", async () => {
    answers.CreateDataset = () => write([1, 2]);
    const examples = [{ q: "ü", nested: { a: [1] } }, { q: 2 }];
    const res = await call("POST", "/v2/datasets", {
      name: "golden",
      space_id: pub.space,
      examples,
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual(publicDataset);
    expect(calls[0]!.request).toEqual({
      spaceId: SPACE,
      name: "golden",
      examples: examples.map((e) => ({ id: "", fieldsJson: JSON.stringify(e) })),
    });
  });

  it("sends each example as JSON.stringify writes it, however the caller spelled it", async () => {
    answers.CreateDataset = () => write([1, 2, 3, 4, 5]);
    answers.InsertExamples = () => write([1, 2, 3, 4, 5]);
    // As the caller wrote them: the first as JSON.stringify would; the others not.
    const spelled = [
      '{"q":"a \\"b\\"\\n","n":[1,0.5,{"x":null}]}',
      '{"q": "spaced"}',
      '{"q":1.0,"big":12345678901234567890}',
      '{"q":"\\u00e9\\/","q":"twice"}',
      '{"b":1,"1":"index"}',
    ];
    const stringified = spelled.map((t) => JSON.stringify(JSON.parse(t)));
    expect(stringified[0]).toBe(spelled[0]);
    expect(stringified.slice(1).every((t, i) => t !== spelled[i + 1])).toBe(true);
    const examples = `[${spelled.join(" , ")}]`;
    const created = await call(
      "POST",
      "/v2/datasets",
      `{"name":"golden", "space_id":${JSON.stringify(pub.space)},"examples":${examples}}`,
    );
    const inserted = await call(
      "POST",
      `/v2/datasets/${pub.dataset}/examples`,
      `{"examples":${examples}}`,
    );
    expect([created.status, inserted.status]).toEqual([201, 201]);
    for (const c of calls)
      expect((c.request as { examples: ExampleInput[] }).examples.map((e) => e.fieldsJson)).toEqual(
        stringified,
      );
    expect(calls).toHaveLength(2);
  });

  it("inserts into the version asked for (or the latest): 201 with the write result", async () => {
    answers.InsertExamples = () => write([7]);
    const path = `/v2/datasets/${pub.dataset}/examples`;
    const latest = await call("POST", path, { examples: [{ q: 1 }] });
    expect([latest.status, latest.json]).toEqual([201, result([7])]);
    await call("POST", `${path}?dataset_version_id=${pub.v1}`, { examples: [{ q: 1 }] });
    // The official SDK sends an empty dataset_version_id for "the latest".
    await call("POST", `${path}?dataset_version_id=`, { examples: [{ q: 1 }] });
    expect(calls.map((c) => c.request)).toEqual([
      { datasetId: DATASET, versionId: "", examples: [{ id: "", fieldsJson: '{"q":1}' }] },
      { datasetId: DATASET, versionId: V1, examples: [{ id: "", fieldsJson: '{"q":1}' }] },
      { datasetId: DATASET, versionId: "", examples: [{ id: "", fieldsJson: '{"q":1}' }] },
    ]);
  });

  it("updates by id: an id that names no example is sent empty, the service ignores it", async () => {
    answers.UpdateExamples = () => ({ ...write([], V2), examplePositions: [2, 0] });
    const res = await call(
      "PATCH",
      `/v2/datasets/${pub.dataset}/examples?dataset_version_id=${pub.v1}`,
      {
        examples: [
          { id: pub.example(1), answer: "4", meta: { tags: ["x"] } },
          { id: "ex_001", answer: "5" },
          { id: encodeId("Dataset", uuid(102)) },
        ],
        new_version: "v2",
      },
    );
    // The ids at the positions the service names, as they were sent (not encoded again).
    expect([res.status, res.json]).toEqual([
      200,
      { ...result([], pub.v2), example_ids: [encodeId("Dataset", uuid(102)), pub.example(1)] },
    ]);
    const sent = calls[0]!.request as UpdateExamplesRequest;
    // Packed (dataset.proto's PackedExamples): the ids joined by ",", the fields one array.
    expect(sent).toEqual({
      datasetId: DATASET,
      versionId: V1,
      newVersion: "v2",
      examples: [],
      packedExamples: {
        ids: `${uuid(101)},,`,
        fieldsJson: "",
        fields: '[{"answer":"4","meta":{"tags":["x"]}},{"answer":"5"},{}]',
      },
    });
  });

  it("sends each update's fields as JSON.stringify writes them, however the caller spelled it", async () => {
    answers.UpdateExamples = () => ({ ...write([], V1), examplePositions: [] });
    const id = JSON.stringify(pub.example(1));
    // The first two as JSON.stringify would; the others not: spaced, the id last, a key twice,
    // an index key that JSON.parse puts first. Each is sent as the rest of it, stringified.
    const spelled = [
      `{"id":${id},"q":"a \\"b\\"\\n","n":[1,0.5,{"x":null}]}`,
      `{"id":${id}}`,
      `{"id": ${id}, "q": 1}`,
      `{"q":1.0,"id":${id}}`,
      `{"id":${id},"q":"\\u00e9","q":"twice"}`,
      `{"id":${id},"b":1,"1":"index"}`,
    ];
    const fields = spelled.map((t) => {
      const { id: _, ...rest } = JSON.parse(t) as Record<string, unknown>;
      return JSON.stringify(rest);
    });
    expect(fields.slice(0, 2)).toEqual(['{"q":"a \\"b\\"\\n","n":[1,0.5,{"x":null}]}', "{}"]);
    const res = await call(
      "PATCH",
      `/v2/datasets/${pub.dataset}/examples`,
      `{"examples":[${spelled.join(" , ")}]}`,
    );
    expect(res.status).toBe(200);
    const sent = (calls[0]!.request as UpdateExamplesRequest).packedExamples!;
    expect(sent.fields).toBe(`[${fields.join(",")}]`);
    expect(sent.ids).toBe(Array.from(spelled, () => uuid(101)).join(","));
  });

  it("deletes: ids that name no example are not sent and come back not deleted", async () => {
    answers.DeleteExamples = (r) => {
      const req = r as DeleteExamplesRequest;
      return {
        completed: true,
        deletedExampleIds: req.exampleIds.filter((id) => id === uuid(101)),
        notDeletedExampleIds: req.exampleIds.filter((id) => id !== uuid(101)),
      };
    };
    const requested = [pub.example(2), "bogus", pub.example(1), encodeId("Space", uuid(101))];
    const res = await call("DELETE", `/v2/datasets/${pub.dataset}/examples`, {
      dataset_version_id: pub.v1,
      example_ids: requested,
    });
    expect([res.status, res.json]).toEqual([
      200,
      {
        completed: true,
        deleted_example_ids: [pub.example(1)],
        not_deleted_example_ids: [pub.example(2), "bogus", encodeId("Space", uuid(101))],
      },
    ]);
    expect(calls[0]!.request).toEqual({
      datasetId: DATASET,
      versionId: V1,
      exampleIds: [uuid(102), uuid(101)],
    });
  });

  it("still asks the service (access, version) when no id names an example", async () => {
    answers.DeleteExamples = (r) => ({
      completed: true,
      deletedExampleIds: [],
      notDeletedExampleIds: (r as DeleteExamplesRequest).exampleIds,
    });
    const res = await call("DELETE", `/v2/datasets/${pub.dataset}/examples`, {
      dataset_version_id: pub.v1,
      example_ids: ["a", "b"],
    });
    expect(res.json).toEqual({
      completed: true,
      deleted_example_ids: [],
      not_deleted_example_ids: ["a", "b"],
    });
    expect((calls[0]!.request as DeleteExamplesRequest).exampleIds).toEqual([NO_EXAMPLE]);
  });
});

describe("example pages", () => {
  const path = `/v2/datasets/${pub.dataset}/examples`;

  it("sends the raw text as application/json with pagination, and the next page keeps the version", async () => {
    answers.ListExamples = (r) => {
      const req = r as ListExamplesRequest;
      return req.page!.after === ""
        ? { versionId: V2, examples: [example(1, '{"q":"ü"}')], page: { nextAfter: uuid(101) } }
        : { versionId: V2, examples: [example(2, "{}")], page: { nextAfter: "" } };
    };
    const first = await call("GET", `${path}?limit=1`);
    expect(first.status).toBe(200);
    expect(first.contentType).toBe("application/json; charset=utf-8");
    expect(first.json).toEqual({
      examples: [{ id: pub.example(1), created_at: AT, updated_at: LATER, q: "ü" }],
      pagination: { has_more: true, next_cursor: expect.any(String) },
    });
    const cursor = (first.json.pagination as { next_cursor: string }).next_cursor;
    const second = await call("GET", `${path}?limit=1&cursor=${cursor}`);
    expect(second.json).toEqual({
      examples: [{ id: pub.example(2), created_at: AT, updated_at: LATER }],
      pagination: { has_more: false },
    });
    expect(calls.map((c) => c.request)).toEqual([
      { datasetId: DATASET, versionId: "", page: { limit: 1, after: "" } },
      // The latest version when the first page was read, even if a newer one appeared since.
      { datasetId: DATASET, versionId: V2, page: { limit: 1, after: uuid(101) } },
    ]);
    // The cursor is bound to the dataset and the version asked for.
    const other = encodeId("Dataset", uuid(9));
    expect((await call("GET", `/v2/datasets/${other}/examples?cursor=${cursor}`)).status).toBe(400);
    expect(
      (await call("GET", `${path}?dataset_version_id=${pub.v2}&cursor=${cursor}`)).status,
    ).toBe(400);
  });

  it("an empty version is an empty page", async () => {
    answers.ListExamples = () => ({ versionId: V1, examples: [], page: { nextAfter: "" } });
    const res = await call("GET", path);
    expect(res.text).toBe('{"examples":[],"pagination":{"has_more":false}}');
  });

  it("searches with the cursor in the body, bound to the filter and version", async () => {
    answers.SearchExamples = (r) => {
      const req = r as SearchExamplesRequest;
      return req.page!.after === ""
        ? { versionId: V1, examples: [example(1, '{"q":1}')], page: { nextAfter: uuid(101) } }
        : { versionId: V1, examples: [example(2, '{"q":1}')], page: { nextAfter: "" } };
    };
    const search = `${path}/search`;
    const first = await call("POST", search, { filter: "q = 1", limit: 1 });
    expect(first.status).toBe(200);
    const pagination = first.json.pagination as { has_more: boolean; next_cursor: string };
    expect(pagination.has_more).toBe(true);
    const second = await call("POST", search, {
      filter: "q = 1",
      limit: 1,
      cursor: pagination.next_cursor,
    });
    expect(second.json).toEqual({
      examples: [{ id: pub.example(2), created_at: AT, updated_at: LATER, q: 1 }],
      pagination: { has_more: false },
    });
    expect(calls.map((c) => c.request)).toEqual([
      { datasetId: DATASET, versionId: "", filter: "q = 1", page: { limit: 1, after: "" } },
      { datasetId: DATASET, versionId: V1, filter: "q = 1", page: { limit: 1, after: uuid(101) } },
    ]);
    for (const changed of [
      { filter: "q = 2" },
      { filter: "q = 1", dataset_version_id: pub.v1 },
      { filter: "q = 1", cursor: `${pagination.next_cursor.slice(0, -1)}A` },
    ]) {
      const res = await call("POST", search, { cursor: pagination.next_cursor, ...changed });
      expect(res.status, JSON.stringify(changed)).toBe(400);
    }
    // No body at all: every example of the latest version, 50 at a time.
    calls.length = 0;
    await call("POST", search);
    expect(calls[0]!.request).toEqual({
      datasetId: DATASET,
      versionId: "",
      filter: "",
      page: { limit: 50, after: "" },
    });
  });

  it("lists datasets without versions; a space id of another type matches nothing", async () => {
    answers.ListDatasets = () => ({ datasets: [dataset()], page: { nextAfter: "" } });
    const res = await call("GET", `/v2/datasets?space_id=${pub.space}&name=gold`);
    expect(res.json).toEqual({
      datasets: [publicDataset],
      pagination: { has_more: false },
    });
    expect(calls[0]!.request).toEqual({
      page: { limit: 50, after: "" },
      spaceId: SPACE,
      spaceName: "",
      name: "gold",
    });
    const none = await call("GET", `/v2/datasets?space_id=${pub.dataset}`);
    expect(none.json).toEqual({ datasets: [], pagination: { has_more: false } });
    expect(calls).toHaveLength(1);
  });
});

describe("body size", () => {
  /** A create body of exactly `bytes` bytes: one example padded to fit. */
  function createBody(bytes: number): string {
    const shell = (pad: string) =>
      JSON.stringify({ name: "big", space_id: pub.space, examples: [{ text: pad }] });
    const text = shell("x".repeat(bytes - shell("").length));
    expect(Buffer.byteLength(text)).toBe(bytes);
    return text;
  }

  it("dataset writes take 8 MiB; one byte more is 413", async () => {
    answers.CreateDataset = () => ({
      dataset: dataset(),
      versionId: V1,
      exampleIds: [uuid(101)],
      examplePositions: [],
    });
    const ok = await call("POST", "/v2/datasets", createBody(8 * MiB));
    expect(ok.status).toBe(201);
    const fieldsJson = (calls[0]!.request as { examples: { fieldsJson: string }[] }).examples[0]!
      .fieldsJson;
    expect(fieldsJson.length).toBeGreaterThan(8 * MiB - 100);
    const tooBig = await call("POST", "/v2/datasets", createBody(8 * MiB + 1));
    expect([tooBig.status, tooBig.json.type]).toEqual([
      413,
      "https://argus.dev/errors#payload-too-large",
    ]);
    expect(calls).toHaveLength(1);
  });

  it("other operations keep the configured limit", async () => {
    const limit = testConfig().maxBodyBytes;
    const name = "n".repeat(limit);
    const res = await call("PATCH", `/v2/datasets/${pub.dataset}`, { name });
    expect(res.status).toBe(413);
  });
});
