import { DomainError, encodeId, toGrpcError } from "@argus/platform";
import type {
  CreateExperimentRequest,
  Experiment,
  ExperimentRun,
  InsertExperimentRunsRequest,
  ListExperimentRunsRequest,
  SearchExperimentRunsRequest,
} from "@argus/proto/dataset/v1/dataset";
import { describe, expect, it } from "vitest";
import { loadDocument } from "../src/openapi/document.ts";
import { compileOperations } from "../src/openapi/operations.ts";
import { withMember } from "../src/http/respond.ts";
import { NO_EXAMPLE } from "../src/routes/datasets.ts";
import {
  experimentHandlers,
  newRun,
  runText,
  runsText,
  toPublicExperiment,
} from "../src/routes/experiments.ts";
import { AT, LATER, uuid, validation } from "./startGateway.ts";
import { routesOnRecording } from "./recordingBackend.ts";

const EXPERIMENT = uuid(1);
const SPACE = uuid(2);
const DATASET = uuid(3);
const VERSION = uuid(4);
const pub = {
  experiment: encodeId("Experiment", EXPERIMENT),
  space: encodeId("Space", SPACE),
  dataset: encodeId("Dataset", DATASET),
  version: encodeId("DatasetVersion", VERSION),
  example: (n: number) => encodeId("DatasetExample", uuid(100 + n)),
  run: (n: number) => encodeId("ExperimentRun", uuid(200 + n)),
};
const MiB = 1024 * 1024;

const experiment = (over: Partial<Experiment> = {}): Experiment => ({
  id: EXPERIMENT,
  spaceId: SPACE,
  name: "baseline",
  datasetId: DATASET,
  datasetVersionId: VERSION,
  createdAt: AT,
  updatedAt: LATER,
  integrationId: "",
  ...over,
});
const run = (n: number, fieldsJson: string, exampleId = uuid(100 + n)): ExperimentRun => ({
  id: uuid(200 + n),
  exampleId,
  output: `out ${n}`,
  fieldsJson,
  createdAt: AT,
  annotationsJson: "",
});
/** The public experiment on the dataset, as every answer of these tests shows it. */
const publicExperiment = {
  id: pub.experiment,
  name: "baseline",
  space_id: pub.space,
  dataset_id: pub.dataset,
  dataset_version_id: pub.version,
  created_at: AT,
  updated_at: LATER,
  integration_id: null,
};

const SECRET = "c".repeat(32);
const { calls, answers, call } = routesOnRecording((fake) => experimentHandlers(fake, SECRET));

describe("the document", () => {
  const ops = compileOperations(loadDocument().document);
  it("serves the experiments group with the SDK's operation ids", () => {
    expect(
      ops
        .filter((o) => o.path.startsWith("/v2/experiments") && !o.path.endsWith("/tags"))
        .map((o) => [o.operationId, o.method, o.path, o.paginated, o.maxBodyBytes]),
    ).toEqual([
      ["list_experiments", "get", "/v2/experiments", true, undefined],
      ["create_experiment", "post", "/v2/experiments", false, 8 * MiB],
      ["get_experiment", "get", "/v2/experiments/{experiment_id}", false, undefined],
      ["delete_experiment", "delete", "/v2/experiments/{experiment_id}", false, undefined],
      ["list_experiment_runs", "get", "/v2/experiments/{experiment_id}/runs", true, undefined],
      ["insert_experiment_runs", "post", "/v2/experiments/{experiment_id}/runs", false, 8 * MiB],
      [
        "search_experiment_runs",
        "post",
        "/v2/experiments/{experiment_id}/runs/search",
        false,
        undefined,
      ],
      [
        "annotate_experiment_runs",
        "post",
        "/v2/experiments/{experiment_id}/runs/annotate",
        false,
        8 * MiB,
      ],
    ]);
  });

  const failure = validation({ experiment_id: pub.experiment });
  const onDataset = (over: Record<string, unknown> = {}) => ({
    name: "baseline",
    dataset_id: pub.dataset,
    experiment_runs: [{ example_id: pub.example(1), output: "4" }],
    ...over,
  });
  const inSpace = (over: Record<string, unknown> = {}) => ({
    name: "baseline",
    space_id: pub.space,
    experiment_runs: [{ output: "4" }],
    ...over,
  });
  const create = (body: unknown) => failure("create_experiment", { body });

  it("takes names of 1 to 255 characters, not blank, without a double quote or backslash", () => {
    expect(create(onDataset({ name: "x".repeat(255) }))).toEqual(["ok"]);
    expect(create(onDataset({ name: "🚀".repeat(255) }))).toEqual(["ok"]);
    expect(create(onDataset({ name: "x".repeat(256) }))).toEqual([
      "validation-error",
      "'name' must be at most 255 characters",
    ]);
    expect(create(inSpace({ name: "" }))[0]).toBe("validation-error");
    expect(create(inSpace({ name: " \t" }))).toEqual([
      "validation-error",
      "'name' must not be blank",
    ]);
    for (const name of ['say "hi"', "back\\slash", '"', "\\"])
      expect(create(inSpace({ name })), name).toEqual(["validation-error", "'name' is malformed"]);
    expect(create(inSpace({ name: "it's fine: ü/<>{}" }))).toEqual(["ok"]);
  });

  it("wants exactly one of dataset_id and space_id, and example ids only on a dataset", () => {
    expect(create(onDataset())).toEqual(["ok"]);
    expect(create(inSpace())).toEqual(["ok"]);
    expect(create(inSpace({ experiment_runs: [{ output: "4", example_id: null }] }))).toEqual([
      "ok",
    ]);
    expect(create(onDataset({ space_id: pub.space }))).toEqual([
      "validation-error",
      "'space_id' is not an accepted field",
    ]);
    // The SDK's generated model sends the other id as null when a caller sets it to None.
    expect(create(onDataset({ space_id: null }))).toEqual(["ok"]);
    expect(create(inSpace({ dataset_id: null }))).toEqual(["ok"]);
    expect(create(inSpace({ dataset_id: null, space_id: null }))).toEqual([
      "validation-error",
      "'space_id' must be of type string",
    ]);
    expect(create({ name: "n", experiment_runs: [{ output: "4" }] })).toEqual([
      "validation-error",
      "'space_id' is required",
    ]);
    // On a dataset every run names an example; in a space none does.
    expect(create(onDataset({ experiment_runs: [{ output: "4" }] }))).toEqual([
      "validation-error",
      "'example_id' is required in 'experiment_runs[0]'",
    ]);
    expect(create(onDataset({ experiment_runs: [{ output: "4", example_id: null }] }))[0]).toBe(
      "validation-error",
    );
    expect(
      create(inSpace({ experiment_runs: [{ output: "4", example_id: pub.example(1) }] })),
    ).toEqual(["validation-error", "'experiment_runs[0].example_id' must be of type null"]);
    expect(create(onDataset({ dataset_id: "not base64!" }))[0]).toBe("validation-error");
    expect(create(onDataset({ extra: 1 }))).toEqual([
      "validation-error",
      "'extra' is not an accepted field",
    ]);
  });

  it("writes 1 to 1000 runs, each with an output and no system field", () => {
    const runs = (n: number) => Array.from({ length: n }, (_, i) => ({ output: `o${i}`, i }));
    const insert = (body: unknown) => failure("insert_experiment_runs", { body });
    expect(insert({ experiment_runs: runs(1) })).toEqual(["ok"]);
    expect(insert({ experiment_runs: runs(1000) })).toEqual(["ok"]);
    expect(insert({ experiment_runs: runs(1001) })).toEqual([
      "validation-error",
      "'experiment_runs' must contain at most 1000 items",
    ]);
    expect(insert({ experiment_runs: [] })).toEqual([
      "validation-error",
      "'experiment_runs' must contain at least 1 item",
    ]);
    expect(create(inSpace({ experiment_runs: runs(1001) }))[0]).toBe("validation-error");
    expect(create(inSpace({ experiment_runs: [] }))[0]).toBe("validation-error");
    expect(insert({ experiment_runs: [{ example_id: "ex_1" }] })).toEqual([
      "validation-error",
      "'output' is required in 'experiment_runs[0]'",
    ]);
    expect(insert({ experiment_runs: [{ output: 4 }] })[0]).toBe("validation-error");
    for (const field of ["id", "created_at", "updated_at", "annotations"])
      expect(insert({ experiment_runs: [{ output: "o", [field]: "x" }] })).toEqual([
        "validation-error",
        `'experiment_runs[0].${field}' is not an accepted field`,
      ]);
    expect(insert({ experiment_runs: [{ output: "o", error: null, model: "m" }] })).toEqual(["ok"]);
    expect(insert({ experiment_runs: [{ output: "o", error: { code: 1 } }] })[0]).toBe(
      "validation-error",
    );
    expect(insert({ experiment_runs: [{ output: "o", example_id: "" }] })[0]).toBe(
      "validation-error",
    );
    expect(insert({ experiment_runs: [{ output: "o" }], more: 1 })[0]).toBe("validation-error");
  });

  it("filters lists by a name of at most 255 characters and pages runs by up to 500", () => {
    const list = (query: Record<string, unknown>) => failure("list_experiments", { query });
    expect(list({ name: "x".repeat(255) })).toEqual(["ok"]);
    expect(list({ name: "x".repeat(256) })[0]).toBe("invalid-request");
    expect(list({ name: '"\\' })).toEqual(["ok"]);
    expect(list({ limit: "100" })).toEqual(["ok"]);
    expect(list({ limit: "101" })[0]).toBe("invalid-request");
    const runs = (query: Record<string, unknown>) => failure("list_experiment_runs", { query });
    expect(runs({ limit: "500" })).toEqual(["ok"]);
    expect(runs({ limit: "501" })[0]).toBe("invalid-request");
    expect(runs({ limit: "0" })[0]).toBe("invalid-request");
  });

  it("refuses a blank filter, an unknown field and an out-of-range search limit with 400", () => {
    const search = (body: unknown) => failure("search_experiment_runs", { body });
    expect(search(undefined)).toEqual(["ok"]);
    expect(search({})).toEqual(["ok"]);
    expect(search({ filter: "output = '4'", limit: 500 })).toEqual(["ok"]);
    expect(search({ filter: " \t" })).toEqual(["invalid-request", "'filter' must not be blank"]);
    expect(search({ filter: "" })[0]).toBe("invalid-request");
    expect(search({ limit: 501 })[0]).toBe("invalid-request");
    expect(search({ limit: 0 })[0]).toBe("invalid-request");
    expect(search({ other: 1 })[0]).toBe("invalid-request");
  });
});

describe("run JSON text", () => {
  const head = (n: number, example: string | null = pub.example(n)) =>
    `{"id":"${pub.run(n)}","example_id":${example === null ? "null" : `"${example}"`},"output":"out ${n}"`;

  it("joins id, example_id and output with the service's field text without parsing it", () => {
    expect(runText(run(1, '{"model":"m","latency_ms":12}'))).toBe(
      `${head(1)},"model":"m","latency_ms":12}`,
    );
    expect(runText(run(1, "{}"))).toBe(`${head(1)}}`);
    expect(runText(run(1, " { \n } "))).toBe(`${head(1)}}`);
    expect(runText(run(1, ""))).toBe(`${head(1)}}`);
    // Postgres' jsonb text, spaces and all.
    expect(runText(run(1, '{"error": null, "k": [1, 2]}'))).toBe(
      `${head(1)},"error": null, "k": [1, 2]}`,
    );
    expect(runText(run(1, "{}", ""))).toBe(`${head(1, null)}}`);
    expect(() => runText(run(1, "[1]"))).toThrow(/not an object/);
  });

  it("keeps unicode, escapes and nested values exactly", () => {
    const fields = {
      "naïve key 🚀": '日本語 \u2028 "quoted" \\ back',
      nested: { list: [1, { deep: [null, true, 1.5e-7] }], empty: {} },
      "": "empty key",
    };
    const r = { ...run(2, JSON.stringify(fields)), output: 'ünïcode "out" \n\t 🚀 \\' };
    expect(JSON.parse(runText(r))).toEqual({
      id: pub.run(2),
      example_id: pub.example(2),
      output: 'ünïcode "out" \n\t 🚀 \\',
      ...fields,
    });
  });

  it("renders a page, and the gateway adds pagination before the closing brace", () => {
    const page = runsText([run(1, "{}"), run(2, '{"a":1}', "")]);
    expect(JSON.parse(page.text)).toEqual({
      experiment_runs: [
        { id: pub.run(1), example_id: pub.example(1), output: "out 1" },
        { id: pub.run(2), example_id: null, output: "out 2", a: 1 },
      ],
    });
    expect(withMember(page, "pagination", { has_more: false }).text).toBe(
      `${page.text.slice(0, -1)},"pagination":{"has_more":false}}`,
    );
    expect(runsText([]).text).toBe('{"experiment_runs":[]}');
  });
});

describe("ids", () => {
  it("sends runs as uuid, output and the other fields' JSON text", () => {
    expect(newRun({ example_id: pub.example(1), output: "4", model: "m", n: { a: [1] } })).toEqual({
      exampleId: uuid(101),
      output: "4",
      fieldsJson: '{"model":"m","n":{"a":[1]}}',
    });
    expect(newRun({ output: "4" })).toEqual({ exampleId: "", output: "4", fieldsJson: "{}" });
    expect(newRun({ output: "4", example_id: null, error: null })).toEqual({
      exampleId: "",
      output: "4",
      fieldsJson: '{"error":null}',
    });
    expect(newRun({ output: "4", example_id: "example_001" }).exampleId).toBe(NO_EXAMPLE);
  });

  it("shows an experiment without a dataset with null dataset ids", () => {
    expect(toPublicExperiment(experiment({ datasetId: "", datasetVersionId: "" }))).toEqual({
      ...publicExperiment,
      dataset_id: null,
      dataset_version_id: null,
    });
  });

  it("sends internal uuids and answers public ids", async () => {
    answers.GetExperiment = () => experiment();
    const res = await call("GET", `/v2/experiments/${pub.experiment}`);
    expect(calls).toEqual([{ rpc: "GetExperiment", request: { id: EXPERIMENT } }]);
    expect([res.status, res.json]).toEqual([200, publicExperiment]);
    expect(Object.keys(res.json)).toEqual(Object.keys(publicExperiment));
    answers.DeleteExperiment = () => ({});
    const del = await call("DELETE", `/v2/experiments/${pub.experiment}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    expect(calls[1]).toEqual({ rpc: "DeleteExperiment", request: { id: EXPERIMENT } });
  });

  it("answers 404 for an experiment, dataset or space id that names none, without asking", async () => {
    const other = encodeId("Dataset", EXPERIMENT);
    expect((await call("GET", `/v2/experiments/${other}`)).status).toBe(404);
    expect((await call("DELETE", `/v2/experiments/${other}`)).status).toBe(404);
    expect((await call("GET", `/v2/experiments/${other}/runs`)).status).toBe(404);
    expect((await call("POST", `/v2/experiments/${other}/runs/search`)).status).toBe(404);
    const insert = await call("POST", `/v2/experiments/${other}/runs`, {
      experiment_runs: [{ output: "o" }],
    });
    expect(insert.status).toBe(404);
    const onDataset = await call("POST", "/v2/experiments", {
      name: "n",
      dataset_id: pub.space,
      experiment_runs: [{ example_id: pub.example(1), output: "o" }],
    });
    expect([onDataset.status, onDataset.json.detail]).toEqual([404, "dataset not found"]);
    const inSpace = await call("POST", "/v2/experiments", {
      name: "n",
      space_id: pub.dataset,
      experiment_runs: [{ output: "o" }],
    });
    expect([inSpace.status, inSpace.json.detail]).toEqual([404, "space not found"]);
    expect((await call("GET", `/v2/experiments?dataset_id=${pub.space}`)).status).toBe(404);
    expect((await call("GET", `/v2/experiments?space_id=${pub.dataset}`)).status).toBe(404);
    expect(calls).toEqual([]);
  });

  it("passes the service's errors through as Problems", async () => {
    answers.CreateExperiment = () => {
      throw toGrpcError(new DomainError("resource-conflict", "name taken"));
    };
    const res = await call("POST", "/v2/experiments", {
      name: "taken",
      space_id: pub.space,
      experiment_runs: [{ output: "o" }],
    });
    expect([res.status, res.json.detail]).toEqual([409, "name taken"]);
    answers.InsertExperimentRuns = () => {
      throw toGrpcError(new DomainError("validation-error", "not an example"));
    };
    const bad = await call("POST", `/v2/experiments/${pub.experiment}/runs`, {
      experiment_runs: [{ output: "o", example_id: "ex_1" }],
    });
    expect([bad.status, bad.json.detail]).toEqual([422, "not an example"]);
    expect((calls[1]!.request as InsertExperimentRunsRequest).runs[0]!.exampleId).toBe(NO_EXAMPLE);
  });
});

describe("experiment writes", () => {
  it("creates on a dataset: 201 with the experiment, runs sent as uuids and field text", async () => {
    answers.CreateExperiment = () => ({ experiment: experiment(), runIds: [uuid(201)] });
    const res = await call("POST", "/v2/experiments", {
      name: "baseline",
      dataset_id: pub.dataset,
      experiment_runs: [
        { example_id: pub.example(1), output: "4", model: "gpt", score: 0.5 },
        { example_id: "example_001", output: "ü", nested: { a: [null] } },
      ],
    });
    expect([res.status, res.json]).toEqual([201, publicExperiment]);
    expect(calls[0]!.request as CreateExperimentRequest).toEqual({
      name: "baseline",
      datasetId: DATASET,
      spaceId: "",
      runs: [
        { exampleId: uuid(101), output: "4", fieldsJson: '{"model":"gpt","score":0.5}' },
        { exampleId: NO_EXAMPLE, output: "ü", fieldsJson: '{"nested":{"a":[null]}}' },
      ],
    });
  });

  it("creates in a space: example ids stay empty, dataset ids come back null", async () => {
    answers.CreateExperiment = () => ({
      experiment: experiment({ datasetId: "", datasetVersionId: "" }),
      runIds: [uuid(201)],
    });
    const res = await call("POST", "/v2/experiments", {
      name: "baseline",
      space_id: pub.space,
      experiment_runs: [{ output: "4", example_id: null }],
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ ...publicExperiment, dataset_id: null, dataset_version_id: null });
    expect(calls[0]!.request).toEqual({
      name: "baseline",
      datasetId: "",
      spaceId: SPACE,
      runs: [{ exampleId: "", output: "4", fieldsJson: "{}" }],
    });
  });

  it("reads a null dataset_id as left out: the experiment is the space's", async () => {
    answers.CreateExperiment = () => ({
      experiment: experiment({ datasetId: "", datasetVersionId: "" }),
      runIds: [uuid(201)],
    });
    const res = await call("POST", "/v2/experiments", {
      name: "baseline",
      dataset_id: null,
      space_id: pub.space,
      experiment_runs: [{ output: "4" }],
    });
    expect(res.status).toBe(201);
    expect(calls[0]!.request).toMatchObject({ datasetId: "", spaceId: SPACE });
  });

  it("inserts runs: 201 with the experiment and the run ids in request order", async () => {
    answers.InsertExperimentRuns = () => ({
      experiment: experiment(),
      runIds: [uuid(202), uuid(201)],
    });
    const res = await call("POST", `/v2/experiments/${pub.experiment}/runs`, {
      experiment_runs: [
        { example_id: pub.example(2), output: "a" },
        { example_id: pub.example(1), output: "b", error: "boom" },
      ],
    });
    expect([res.status, res.json]).toEqual([
      201,
      { ...publicExperiment, run_ids: [pub.run(2), pub.run(1)] },
    ]);
    expect(calls[0]!.request).toEqual({
      experimentId: EXPERIMENT,
      runs: [
        { exampleId: uuid(102), output: "a", fieldsJson: "{}" },
        { exampleId: uuid(101), output: "b", fieldsJson: '{"error":"boom"}' },
      ],
    });
  });
});

describe("lists", () => {
  it("lists experiments by dataset, by space, by name or all; both ids are a 400", async () => {
    answers.ListExperiments = () => ({
      experiments: [experiment(), experiment({ id: uuid(9), datasetId: "", datasetVersionId: "" })],
      page: { nextAfter: "" },
    });
    const all = await call("GET", "/v2/experiments");
    expect(all.json).toEqual({
      experiments: [
        publicExperiment,
        {
          ...publicExperiment,
          id: encodeId("Experiment", uuid(9)),
          dataset_id: null,
          dataset_version_id: null,
        },
      ],
      pagination: { has_more: false },
    });
    await call("GET", `/v2/experiments?dataset_id=${pub.dataset}&name=Base`);
    await call("GET", `/v2/experiments?space_id=${pub.space}&limit=2`);
    expect(calls.map((c) => c.request)).toEqual([
      { page: { limit: 50, after: "" }, datasetId: "", spaceId: "", name: "" },
      { page: { limit: 50, after: "" }, datasetId: DATASET, spaceId: "", name: "Base" },
      { page: { limit: 2, after: "" }, datasetId: "", spaceId: SPACE, name: "" },
    ]);
    calls.length = 0;
    // Both filters: a validation error, even when neither id names anything.
    for (const query of [
      `dataset_id=${pub.dataset}&space_id=${pub.space}`,
      `dataset_id=${pub.space}&space_id=${pub.dataset}`,
    ]) {
      const both = await call("GET", `/v2/experiments?${query}`);
      expect([both.status, both.json.type, both.json.detail]).toEqual([
        400,
        "https://argus.dev/errors#invalid-request",
        "give dataset_id or space_id, not both",
      ]);
    }
    expect(calls).toEqual([]);
  });

  it("pages experiments with a cursor bound to the filters", async () => {
    answers.ListExperiments = () => ({ experiments: [experiment()], page: { nextAfter: uuid(1) } });
    const first = await call("GET", `/v2/experiments?space_id=${pub.space}&limit=1`);
    const cursor = (first.json.pagination as { next_cursor: string }).next_cursor;
    expect(typeof cursor).toBe("string");
    await call("GET", `/v2/experiments?space_id=${pub.space}&limit=1&cursor=${cursor}`);
    expect((calls[1]!.request as { page: unknown }).page).toEqual({ limit: 1, after: uuid(1) });
    expect((await call("GET", `/v2/experiments?limit=1&cursor=${cursor}`)).status).toBe(400);
  });

  it("sends runs as raw JSON text with pagination; the cursor keeps to the experiment", async () => {
    answers.ListExperimentRuns = (r) =>
      (r as ListExperimentRunsRequest).page!.after === ""
        ? { runs: [run(1, '{"model":"ü"}')], page: { nextAfter: uuid(201) } }
        : { runs: [run(2, "{}")], page: { nextAfter: "" } };
    const path = `/v2/experiments/${pub.experiment}/runs`;
    const first = await call("GET", `${path}?limit=1`);
    expect(first.status).toBe(200);
    expect(first.contentType).toBe("application/json; charset=utf-8");
    expect(first.json).toEqual({
      experiment_runs: [
        { id: pub.run(1), example_id: pub.example(1), output: "out 1", model: "ü" },
      ],
      pagination: { has_more: true, next_cursor: expect.any(String) },
    });
    const cursor = (first.json.pagination as { next_cursor: string }).next_cursor;
    const second = await call("GET", `${path}?limit=1&cursor=${cursor}`);
    expect(second.json).toEqual({
      experiment_runs: [{ id: pub.run(2), example_id: pub.example(2), output: "out 2" }],
      pagination: { has_more: false },
    });
    expect(calls.map((c) => c.request)).toEqual([
      { experimentId: EXPERIMENT, page: { limit: 1, after: "" } },
      { experimentId: EXPERIMENT, page: { limit: 1, after: uuid(201) } },
    ]);
    const other = encodeId("Experiment", uuid(9));
    expect((await call("GET", `/v2/experiments/${other}/runs?cursor=${cursor}`)).status).toBe(400);
  });

  it("searches with the cursor in the body, bound to the experiment and the filter", async () => {
    answers.SearchExperimentRuns = (r) =>
      (r as SearchExperimentRunsRequest).page!.after === ""
        ? { runs: [run(1, "{}")], page: { nextAfter: uuid(201) } }
        : { runs: [run(2, "{}")], page: { nextAfter: "" } };
    const search = `/v2/experiments/${pub.experiment}/runs/search`;
    const first = await call("POST", search, { filter: "output = 'x'", limit: 1 });
    expect(first.status).toBe(200);
    const pagination = first.json.pagination as { has_more: boolean; next_cursor: string };
    expect(pagination.has_more).toBe(true);
    const second = await call("POST", search, {
      filter: "output = 'x'",
      limit: 1,
      cursor: pagination.next_cursor,
    });
    expect(second.json).toEqual({
      experiment_runs: [{ id: pub.run(2), example_id: pub.example(2), output: "out 2" }],
      pagination: { has_more: false },
    });
    expect(calls.map((c) => c.request)).toEqual([
      { experimentId: EXPERIMENT, filter: "output = 'x'", page: { limit: 1, after: "" } },
      { experimentId: EXPERIMENT, filter: "output = 'x'", page: { limit: 1, after: uuid(201) } },
    ]);
    const other = `/v2/experiments/${encodeId("Experiment", uuid(9))}/runs/search`;
    for (const [path, body] of [
      [search, { filter: "output = 'y'", cursor: pagination.next_cursor }],
      [search, { cursor: pagination.next_cursor }],
      [other, { filter: "output = 'x'", cursor: pagination.next_cursor }],
    ] as const) {
      const res = await call("POST", path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    // No body at all: every run, 50 at a time.
    calls.length = 0;
    await call("POST", search);
    expect(calls[0]!.request).toEqual({
      experimentId: EXPERIMENT,
      filter: "",
      page: { limit: 50, after: "" },
    });
  });
});
