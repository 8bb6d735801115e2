import { DomainError, encodeId, toGrpcError } from "@argus/platform";
import type {
  AnnotateSpansRequest,
  DeleteSpansRequest,
  ListSpansRequest,
  ListTracesRequest,
} from "@argus/proto/tracing/v1/tracing";
import { describe, expect, it } from "vitest";
import { loadDocument } from "../src/openapi/document.ts";
import { compileOperations } from "../src/openapi/operations.ts";
import {
  boundPosition,
  bodyDigest,
  itemsText,
  readBoundPosition,
  spanHandlers,
} from "../src/routes/spans.ts";
import { utcInstant } from "../src/routes/params.ts";
import { traceHandlers } from "../src/routes/traces.ts";
import { routesOnRecording } from "./recordingBackend.ts";
import { validation } from "./startGateway.ts";

const PROJECT = "0192f4a0-0000-7000-8000-000000000001";
const project = encodeId("Project", PROJECT);
const MiB = 1024 * 1024;

/** A span as the service writes it: public shape, its own spelling (kept byte for byte). */
const spanText = (n: number) =>
  `{"name":"llm call ${n}","context":{"trace_id":"${"a".repeat(32)}","span_id":"${String(n).padStart(16, "0")}"},` +
  `"kind":"LLM","parent_id":null,"start_time":"2026-01-02T03:04:05.123456789Z",` +
  `"end_time":"2026-01-02T03:04:06Z","status_code":"OK","status_message":"",` +
  `"attributes":{"llm.model_name":"gpt","score":1.50,"naïve 🚀":"\\u2028"},"events":[]}`;
const traceText = (n: number) =>
  `{"trace_id":"${String(n).padStart(32, "0")}","root_span_id":"${String(n).padStart(16, "0")}",` +
  `"start_time":"2026-01-02T03:04:05Z","end_time":"2026-01-02T03:04:06Z","spans_truncated":false,` +
  `"spans":[${spanText(n)}]}`;

const { calls, answers, call } = routesOnRecording((fake) => ({
  ...spanHandlers(fake),
  ...traceHandlers(fake),
}));

const pagination = (res: { json: Record<string, unknown> }) =>
  res.json.pagination as { has_more: boolean; next_cursor?: string };

describe("the document", () => {
  const ops = compileOperations(loadDocument().document);

  it("serves spans and traces with the SDK's operation ids, methods and paths", () => {
    expect(
      ops
        .filter((o) => /^\/v2\/(spans|traces)/.test(o.path))
        .map((o) => [o.operationId, o.method, o.path, o.paginated, o.maxBodyBytes]),
    ).toEqual([
      ["list_spans", "post", "/v2/spans", true, undefined],
      ["delete_spans", "delete", "/v2/spans", false, undefined],
      ["annotate_spans", "post", "/v2/spans/annotate", false, 8 * MiB],
      ["list_traces", "post", "/v2/traces", true, undefined],
    ]);
  });

  /** ["ok"], or the problem type and detail the validation answers. */
  const failure = validation();
  const limit = (id: string, value?: string) => {
    const input = {
      query: value === undefined ? {} : { limit: value },
      body: { project_id: project },
    };
    const result = failure(id, input);
    return result[0] === "ok" ? input.query.limit : result[0];
  };

  it("pages spans by 1 to 500 (50 by default) and traces by 1 to 50 (25 by default)", () => {
    expect(["0", "1", "500", "501"].map((v) => limit("list_spans", v))).toEqual([
      "invalid-request",
      1,
      500,
      "invalid-request",
    ]);
    expect(limit("list_spans")).toBe(50);
    expect(["0", "1", "50", "51"].map((v) => limit("list_traces", v))).toEqual([
      "invalid-request",
      1,
      50,
      "invalid-request",
    ]);
    expect(limit("list_traces")).toBe(25);
  });

  it("deletes 1 to 5000 span ids", () => {
    const ids = (n: number) => ({
      body: { project_id: project, span_ids: Array.from({ length: n }, (_, i) => `s${i}`) },
    });
    expect(failure("delete_spans", ids(0))).toEqual([
      "invalid-request",
      "'span_ids' must contain at least 1 item",
    ]);
    expect(failure("delete_spans", ids(1))).toEqual(["ok"]);
    expect(failure("delete_spans", ids(5000))).toEqual(["ok"]);
    expect(failure("delete_spans", ids(5001))).toEqual([
      "invalid-request",
      "'span_ids' must contain at most 5000 items",
    ]);
    expect(failure("delete_spans", { body: { span_ids: ["s"] } })).toEqual([
      "invalid-request",
      "'project_id' is required",
    ]);
  });

  it("annotates 1 to 1000 records, each with at least one value", () => {
    const records = (n: number) => ({
      body: {
        project_id: project,
        annotations: Array.from({ length: n }, (_, i) => ({
          record_id: `s${i}`,
          values: [{ name: "quality", label: "good" }],
        })),
      },
    });
    expect(failure("annotate_spans", records(0))[0]).toBe("invalid-request");
    expect(failure("annotate_spans", records(1))).toEqual(["ok"]);
    expect(failure("annotate_spans", records(1000))).toEqual(["ok"]);
    expect(failure("annotate_spans", records(1001))).toEqual([
      "invalid-request",
      "'annotations' must contain at most 1000 items",
    ]);
    const one = (over: object) => ({
      body: { project_id: project, annotations: [{ record_id: "s", values: [], ...over }] },
    });
    expect(failure("annotate_spans", one({}))[0]).toBe("invalid-request");
    expect(failure("annotate_spans", one({ record_id: "" }))[0]).toBe("invalid-request");
    const granularity = (g: string) =>
      failure("annotate_spans", {
        body: { ...records(1).body, granularity: g },
      })[0];
    expect(["SPAN", "TRACE", "SESSION", "span"].map(granularity)).toEqual([
      "ok",
      "ok",
      "ok", // the schema names the SDK's values; the handler refuses SESSION (below)
      "invalid-request",
    ]);
  });

  it("checks columns, truncation, the filter and timestamps of a span list", () => {
    const list = (over: object) =>
      failure("list_spans", { body: { project_id: project, ...over } });
    const cols = (n: number) => Array.from({ length: n }, (_, i) => `attributes.c${i}`);
    expect(list({ included_columns: cols(1) })).toEqual(["ok"]);
    expect(list({ excluded_columns: cols(1000) })).toEqual(["ok"]);
    expect(list({ included_columns: [] })[0]).toBe("invalid-request");
    expect(list({ included_columns: cols(1001) })[0]).toBe("invalid-request");
    expect(list({ excluded_columns: [""] })[0]).toBe("invalid-request");
    expect(list({ truncate_string_length: 1 })).toEqual(["ok"]);
    expect(list({ truncate_string_length: 0 })).toEqual([
      "invalid-request",
      "'truncate_string_length' must be at least 1",
    ]);
    expect(list({ truncate_string_length: 2 ** 31 })[0]).toBe("invalid-request");
    expect(list({ filter: "status_code = 'ERROR'" })).toEqual(["ok"]);
    expect(list({ filter: " \t" })).toEqual(["invalid-request", "'filter' must not be blank"]);
    for (const t of [
      "2026-01-02T03:04:05Z",
      "2026-01-02T03:04:05.123456",
      "2026-01-02T03:04:05+05:30",
      "2026-01-02 03:04:05-0800",
    ])
      expect(list({ start_time: t, end_time: t }), t).toEqual(["ok"]);
    for (const t of ["2026-01-02", "2026-02-30T00:00:00Z", "yesterday", "1767322800"])
      expect(list({ end_time: t })[0], t).toBe("invalid-request");
    expect(list({ unknown: 1 })).toEqual(["invalid-request", "'unknown' is not an accepted field"]);
    expect(failure("list_spans", { body: {} })).toEqual([
      "invalid-request",
      "'project_id' is required",
    ]);
    expect(
      failure("list_traces", { body: { project_id: project, included_columns: ["a"] } })[0],
    ).toBe("invalid-request");
  });
});

describe("timestamps", () => {
  it("become RFC 3339 UTC, keeping their sub-millisecond digits", () => {
    expect(utcInstant("2026-01-02T03:04:05", "t").text).toBe("2026-01-02T03:04:05Z");
    expect(utcInstant("2026-01-02t03:04:05.123456z", "t").text).toBe("2026-01-02T03:04:05.123456Z");
    expect(utcInstant("2026-01-02T03:04:05.1234567891+02:00", "t").text).toBe(
      "2026-01-02T01:04:05.123456789Z",
    );
    expect(utcInstant("2026-01-01T23:30:00-0530", "t").text).toBe("2026-01-02T05:00:00Z");
    expect(utcInstant("2026-01-02T03:04:05+05", "t").text).toBe("2026-01-01T22:04:05Z");
    expect(utcInstant("0050-06-01T00:00:00Z", "t").text).toBe("0050-06-01T00:00:00Z");
    expect(utcInstant("2016-12-31T23:59:60Z", "t").text).toBe("2017-01-01T00:00:00Z");
    expect(() => utcInstant("tomorrow", "end_time")).toThrow(/'end_time'/);
  });

  it("compare as instants, across offsets and beyond milliseconds", () => {
    const key = (t: string) => utcInstant(t, "t").key;
    expect(key("2026-01-02T03:04:05.0001Z") > key("2026-01-02T03:04:05Z")).toBe(true);
    expect(key("2026-01-02T03:04:05.000000002Z") > key("2026-01-02T03:04:05.000000001Z")).toBe(
      true,
    );
    expect(key("2026-01-02T05:00:00+02:00")).toBe(key("2026-01-02T03:00:00"));
  });
});

describe("list_spans", () => {
  const answer = (spans: string[], nextAfter = "") => {
    answers.ListSpans = () => ({ spans, page: { nextAfter } });
  };

  it("sends the project's uuid, the UTC window, the filter and the columns", async () => {
    answer([]);
    const res = await call("POST", "/v2/spans?limit=7", {
      project_id: project,
      start_time: "2026-01-01T00:00:00.5+01:00",
      end_time: "2026-01-02T00:00:00",
      filter: "status_code = 'ERROR'",
      included_columns: ["attributes.llm.model_name"],
      truncate_string_length: 100,
    });
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "ListSpans",
        request: {
          projectId: PROJECT,
          startTime: "2025-12-31T23:00:00.5Z",
          endTime: "2026-01-02T00:00:00Z",
          filter: "status_code = 'ERROR'",
          includedColumns: ["attributes.llm.model_name"],
          excludedColumns: [],
          truncateStringLength: 100,
          page: { limit: 7, after: "" },
        } satisfies ListSpansRequest,
      },
    ]);
  });

  it("leaves the defaults to the service: empty window, no filter, no truncation", async () => {
    answer([]);
    expect((await call("POST", "/v2/spans", { project_id: project })).status).toBe(200);
    expect(calls[0]!.request).toEqual({
      projectId: PROJECT,
      startTime: "",
      endTime: "",
      filter: "",
      includedColumns: [],
      excludedColumns: [],
      truncateStringLength: 0,
      page: { limit: 50, after: "" },
    } satisfies ListSpansRequest);
  });

  it("renders the service's span texts as they are, with pagination", async () => {
    answer([spanText(1), spanText(2)]);
    const res = await call("POST", "/v2/spans", { project_id: project });
    expect(res.text).toBe(
      `{"spans":[${spanText(1)},${spanText(2)}],"pagination":{"has_more":false}}`,
    );
    expect((res.json.spans as { attributes: object }[])[0]!.attributes).toEqual({
      "llm.model_name": "gpt",
      score: 1.5,
      "naïve 🚀": "\u2028",
    });
    answer([]);
    expect((await call("POST", "/v2/spans", { project_id: project })).text).toBe(
      '{"spans":[],"pagination":{"has_more":false}}',
    );
  });

  it("refuses a service answer that is not a list of JSON objects", () => {
    expect(itemsText("spans", [" {} ", "{\n}"]).text).toBe('{"spans":[ {} ,{\n}]}');
    expect(() => itemsText("spans", ["[1]"])).toThrow(/not JSON objects/);
    expect(() => itemsText("traces", [""])).toThrow(/not JSON objects/);
    expect(() => itemsText("traces", ["{"])).toThrow(/not JSON objects/);
  });

  it("gives a cursor that resumes the same query, whatever the limit", async () => {
    const body = {
      project_id: project,
      start_time: "2026-01-01T00:00:00Z",
      filter: "kind = 'LLM'",
      excluded_columns: ["attributes.embedding.vectors"],
    };
    answer([spanText(1)], "2026-01-01T10:00:00Z/aaa/0001");
    const first = await call("POST", "/v2/spans?limit=1", body);
    expect(pagination(first).has_more).toBe(true);
    const cursor = pagination(first).next_cursor!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{43}$/);
    expect(cursor).not.toContain("LLM");

    answer([spanText(2)]);
    const second = await call("POST", `/v2/spans?limit=3&cursor=${cursor}`, {
      ...body,
      // The same query in other spellings: the window is compared as UTC instants.
      start_time: "2026-01-01T01:00:00+01:00",
      truncate_string_length: 5,
    });
    expect(second.status).toBe(200);
    expect(pagination(second)).toEqual({ has_more: false });
    expect((calls[1]!.request as ListSpansRequest).page).toEqual({
      limit: 3,
      after: "2026-01-01T10:00:00Z/aaa/0001",
    });
  });

  it("refuses a cursor sent back with another project, filter, window or columns", async () => {
    const body = { project_id: project, filter: "kind = 'LLM'" };
    answer([spanText(1)], "p1");
    const cursor = pagination(await call("POST", "/v2/spans", body)).next_cursor!;
    calls.length = 0;
    const other = encodeId("Project", "0192f4a0-0000-7000-8000-000000000002");
    for (const changed of [
      { ...body, filter: "kind = 'TOOL'" },
      { project_id: project },
      { ...body, project_id: other },
      { ...body, end_time: "2026-01-01T00:00:00Z" },
      { ...body, included_columns: ["attributes.a"] },
    ]) {
      const res = await call("POST", `/v2/spans?cursor=${cursor}`, changed);
      expect([res.status, res.json.detail], JSON.stringify(changed)).toEqual([
        400,
        "the cursor is invalid or belongs to a different query",
      ]);
    }
    expect(calls).toEqual([]);
    // Not a cursor of list_traces either, nor an altered one.
    expect((await call("POST", `/v2/traces?cursor=${cursor}`, body)).status).toBe(400);
    const altered = `${cursor.slice(0, 2)}${cursor[2] === "A" ? "B" : "A"}${cursor.slice(3)}`;
    expect((await call("POST", `/v2/spans?cursor=${altered}`, body)).status).toBe(400);
    expect(calls).toEqual([]);
  });

  it("binds its position to the digest of the body it was made for", () => {
    const a = bodyDigest("list_spans", { projectId: PROJECT, filter: "" });
    const b = bodyDigest("list_spans", { projectId: PROJECT, filter: "x" });
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bodyDigest("list_traces", { projectId: PROJECT, filter: "" })).not.toBe(a);
    expect(boundPosition(a, "")).toBe("");
    expect(readBoundPosition(a, boundPosition(a, "x.y/z"))).toBe("x.y/z");
    expect(readBoundPosition(a, "")).toBe("");
    expect(() => readBoundPosition(b, boundPosition(a, "p"))).toThrow(/different query/);
    expect(() => readBoundPosition(a, "p")).toThrow(/different query/);
  });

  it("refuses both column lists, a zero truncation and an inverted window, asking no one", async () => {
    const cases: [object, number, string][] = [
      [
        { included_columns: ["a"], excluded_columns: ["b"] },
        422,
        "give included_columns or excluded_columns, not both",
      ],
      [{ truncate_string_length: 0 }, 400, "'truncate_string_length' must be at least 1"],
      [
        { start_time: "2026-01-02T00:00:00Z", end_time: "2026-01-01T23:59:59.999999999Z" },
        400,
        "'start_time' must not be after 'end_time'",
      ],
      [
        { start_time: "2026-01-02T00:00:00+01:00", end_time: "2026-01-01T22:00:00" },
        400,
        "'start_time' must not be after 'end_time'",
      ],
    ];
    for (const [over, status, detail] of cases) {
      const res = await call("POST", "/v2/spans", { project_id: project, ...over });
      expect([res.status, res.json.detail]).toEqual([status, detail]);
    }
    // Both columns and a foreign project: the 422 comes first, as nothing is looked up.
    const both = await call("POST", "/v2/spans", {
      project_id: encodeId("Dataset", PROJECT),
      included_columns: ["a"],
      excluded_columns: ["b"],
    });
    expect(both.status).toBe(422);
    expect(calls).toEqual([]);
    answer([]);
    const same = "2026-01-01T00:00:00Z";
    expect(
      (await call("POST", "/v2/spans", { project_id: project, start_time: same, end_time: same }))
        .status,
    ).toBe(200);
  });

  it("answers 404 for an id of another type and 400 for one that is no id", async () => {
    for (const [path, extra] of [
      ["/v2/spans", {}],
      ["/v2/traces", {}],
      ["/v2/spans/annotate", { annotations: [{ record_id: "s", values: [{ name: "n" }] }] }],
    ] as const) {
      const foreign = await call("POST", path, {
        project_id: encodeId("Dataset", PROJECT),
        ...extra,
      });
      expect([foreign.status, foreign.json.detail]).toEqual([404, "project not found"]);
      expect((await call("POST", path, { project_id: "not an id", ...extra })).status).toBe(400);
    }
    const del = await call("DELETE", "/v2/spans", {
      project_id: encodeId("Space", PROJECT),
      span_ids: ["s"],
    });
    expect(del.status).toBe(404);
    expect(calls).toEqual([]);
  });

  it("passes the service's errors through as Problems", async () => {
    answers.ListSpans = () => {
      throw toGrpcError(new DomainError("invalid-request", "filter: unexpected ')' at 7"));
    };
    const res = await call("POST", "/v2/spans", { project_id: project, filter: "a = 1)" });
    expect([res.status, res.json.detail]).toEqual([400, "filter: unexpected ')' at 7"]);
  });
});

describe("list_traces", () => {
  it("sends the query, renders the traces and pages with a cursor bound to its body", async () => {
    answers.ListTraces = () => ({ traces: [traceText(1)], page: { nextAfter: "t1" } });
    const body = { project_id: project, end_time: "2026-01-02T00:00:00Z", filter: "kind = 'LLM'" };
    const first = await call("POST", "/v2/traces", body);
    expect(first.status).toBe(200);
    expect(calls[0]!.request).toEqual({
      projectId: PROJECT,
      startTime: "",
      endTime: "2026-01-02T00:00:00Z",
      filter: "kind = 'LLM'",
      page: { limit: 25, after: "" },
    } satisfies ListTracesRequest);
    const cursor = pagination(first).next_cursor!;
    expect(first.text).toBe(
      `{"traces":[${traceText(1)}],"pagination":{"has_more":true,"next_cursor":"${cursor}"}}`,
    );

    answers.ListTraces = () => ({ traces: [], page: { nextAfter: "" } });
    const second = await call("POST", `/v2/traces?limit=50&cursor=${cursor}`, body);
    expect(second.text).toBe('{"traces":[],"pagination":{"has_more":false}}');
    expect((calls[1]!.request as ListTracesRequest).page).toEqual({ limit: 50, after: "t1" });

    const refused = await call("POST", `/v2/traces?cursor=${cursor}`, { ...body, filter: "x" });
    expect(refused.status).toBe(400);
    // A spans cursor of the same body is not a traces cursor.
    expect((await call("POST", `/v2/spans?cursor=${cursor}`, body)).status).toBe(400);
    expect(calls).toHaveLength(2);
  });
});

describe("annotate_spans", () => {
  const annotations = [
    { record_id: "00000000000000a1", values: [{ name: "quality", label: "good", score: 1 }] },
    { record_id: "00000000000000a2", values: [{ name: "note", text: "ünïcode" }] },
  ];

  it("sends the annotations as their JSON text and answers 202 without a body", async () => {
    answers.AnnotateSpans = () => ({});
    const res = await call("POST", "/v2/spans/annotate", {
      project_id: project,
      start_time: "2026-01-01T00:00:00",
      annotations,
    });
    expect([res.status, res.text]).toEqual([202, ""]);
    expect(calls).toEqual([
      {
        rpc: "AnnotateSpans",
        request: {
          projectId: PROJECT,
          startTime: "2026-01-01T00:00:00Z",
          endTime: "",
          granularity: "SPAN",
          annotations: JSON.stringify(annotations),
        } satisfies AnnotateSpansRequest,
      },
    ]);
    const request = calls[0]!.request as AnnotateSpansRequest;
    expect(JSON.parse(request.annotations)).toEqual(annotations);
  });

  it("passes TRACE granularity and refuses SESSION with a clear 400", async () => {
    answers.AnnotateSpans = () => ({});
    const trace = await call("POST", "/v2/spans/annotate", {
      project_id: project,
      granularity: "TRACE",
      annotations,
    });
    expect(trace.status).toBe(202);
    expect((calls[0]!.request as AnnotateSpansRequest).granularity).toBe("TRACE");
    const session = await call("POST", "/v2/spans/annotate", {
      project_id: project,
      granularity: "SESSION",
      annotations,
    });
    expect(session.status).toBe(400);
    expect(session.json.detail).toMatch(/SESSION is not supported/);
    expect(calls).toHaveLength(1);
  });

  it("passes a 422 of the service through", async () => {
    answers.AnnotateSpans = () => {
      throw toGrpcError(new DomainError("validation-error", "no span 00000000000000a1"));
    };
    const res = await call("POST", "/v2/spans/annotate", { project_id: project, annotations });
    expect([res.status, res.json.detail]).toEqual([422, "no span 00000000000000a1"]);
  });
});

describe("delete_spans", () => {
  it("sends the ids and the window, and answers 200 with the service's lists", async () => {
    answers.DeleteSpans = () => ({
      completed: true,
      deletedSpanIds: ["00000000000000a1"],
      notDeletedSpanIds: ["ffffffffffffffff"],
    });
    const res = await call("DELETE", "/v2/spans", {
      project_id: project,
      span_ids: ["00000000000000a1", "ffffffffffffffff"],
      end_time: "2026-01-02T00:00:00-01:00",
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      completed: true,
      deleted_span_ids: ["00000000000000a1"],
      not_deleted_span_ids: ["ffffffffffffffff"],
    });
    expect(calls).toEqual([
      {
        rpc: "DeleteSpans",
        request: {
          projectId: PROJECT,
          spanIds: ["00000000000000a1", "ffffffffffffffff"],
          startTime: "",
          endTime: "2026-01-02T01:00:00Z",
        } satisfies DeleteSpansRequest,
      },
    ]);
  });

  it("answers a 503 of the service as a Problem", async () => {
    answers.DeleteSpans = () => {
      throw toGrpcError(new DomainError("service-unavailable", "try again"));
    };
    const res = await call("DELETE", "/v2/spans", { project_id: project, span_ids: ["a"] });
    expect([res.status, res.json.status, res.json.detail]).toEqual([503, 503, "try again"]);
  });
});
