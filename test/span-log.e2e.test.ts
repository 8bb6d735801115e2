import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Binary, Int64, Table, Utf8, tableToIPC, vectorFromArray, type Vector } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "@argus/testkit";
import { ensurePythonSdk, python, root, run } from "./python-sdk.ts";
import { arizeSchema, projectIdOf, recentWindow } from "./spans-support.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

/**
 * The official Python SDK's `spans.log` (`POST /v1/pandas_arrow`, public-v2-flight.md §5):
 * 10 000 spans with an evals frame, read back through REST and compared with what was sent;
 * then uploads the server refuses, through the SDK and as raw Arrow bodies, each a clear 4xx
 * that writes nothing.
 */

const ROWS = 10_000;
let api: Api;
let spaceId: string;
let dir: string;
let project: string;
let badProject: string;
let readOnlyKey: string;
let out: Record<string, { type: string; message?: string; answer?: Json }>;
let sent: {
  span_id: string;
  trace_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  start_ns: string;
  end_ns: string;
  status_code: string;
  status_message: string;
  i: number;
  events: number;
}[];

beforeAll(async () => {
  await ensurePythonSdk();
  api = await startApi();
  spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
  const orgId = (await api.ok("GET", "/v2/organizations")).organizations[0].id as string;
  readOnlyKey = (
    await api.ok("POST", "/v2/api-keys", {
      key_type: "SERVICE",
      name: uniqueName("span-log"),
      organizations: [
        {
          org_id: orgId,
          role: { name: "READ_ONLY" },
          spaces: [{ space_id: spaceId, role: { type: "PREDEFINED", name: "READ_ONLY" } }],
        },
      ],
    })
  ).key as string;
  project = uniqueName("span-log");
  badProject = uniqueName("span-log-refused");
  dir = mkdtempSync(join(tmpdir(), "span-log-"));
  const { stdout } = await run(
    python,
    [
      "test/python/span_log.py",
      api.stack.baseUrl,
      api.stack.apiKey,
      join(dir, "sent.json"),
      JSON.stringify({
        space_id: spaceId,
        project,
        rows: ROWS,
        bad_project: badProject,
        read_only_key: readOnlyKey,
      }),
    ],
    { cwd: root, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
  );
  out = JSON.parse(stdout.trim().split("\n").at(-1)!) as typeof out;
  sent = JSON.parse(readFileSync(join(dir, "sent.json"), "utf8")) as typeof sent;
}, 300_000);
afterAll(async () => {
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every span of the project, through `POST /v2/spans`, 500 a page. */
async function allSpans(projectId: string): Promise<Json[]> {
  const spans: Json[] = [];
  const window = recentWindow();
  let cursor = "";
  for (;;) {
    const query = `?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api.ok("POST", `/v2/spans${query}`, { project_id: projectId, ...window });
    spans.push(...(page.spans as Json[]));
    if (!page.pagination.has_more) return spans;
    cursor = page.pagination.next_cursor as string;
  }
}

/** RFC 3339 with microseconds → nanoseconds since the epoch, as text. */
const nanos = (iso: string): string => {
  const seconds = BigInt(Math.floor(Date.parse(`${iso.slice(0, 19)}Z`) / 1000));
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? "";
  return (seconds * 1_000_000_000n + BigInt(fraction.padEnd(9, "0").slice(0, 9))).toString();
};

describe("spans.log through the SDK", () => {
  it("answers 200 with what it stored: every span, and the joined evaluations", () => {
    expect(out.log).toEqual({
      type: "ok",
      answer: {
        status: 200,
        body: {
          spans_logged: ROWS,
          evaluations: { records_updated: ROWS / 50, unmatched_ids: [] },
        },
      },
    });
  });

  it(`stores the ${ROWS} spans in the named project as sent, as REST reads them`, async () => {
    expect(sent).toHaveLength(ROWS);
    const spans = await allSpans(await projectIdOf(api.stack, spaceId, project));
    expect(spans).toHaveLength(ROWS);
    const byId = new Map(spans.map((s) => [s.context.span_id as string, s]));
    for (const row of sent) {
      const span = byId.get(row.span_id)!;
      const id = `${row.name} (${row.span_id})`;
      expect(span, id).toBeDefined();
      expect(span.context.trace_id, id).toBe(row.trace_id);
      expect(span.parent_id ?? null, id).toBe(row.parent_id);
      expect(span.name, id).toBe(row.name);
      expect(span.kind, id).toBe(row.kind);
      expect(nanos(span.start_time as string), id).toBe(row.start_ns);
      expect(nanos(span.end_time as string), id).toBe(row.end_ns);
      expect(span.status_code, id).toBe(row.status_code);
      expect(span.status_message, id).toBe(row.status_message);
      const i = row.i;
      const expected: Record<string, unknown> = {
        "openinference.span.kind": row.kind,
        "input.value": `in ${i}`,
        "llm.token_count.total": i,
        // The SDK's JSON text of the dict, kept as text, as OpenInference sends metadata.
        metadata: JSON.stringify({ i, even: i % 2 === 0 }).replaceAll(/([:,])/g, "$1 "),
      };
      if (row.kind === "LLM") {
        // Flattened under the item's index, as OpenInference's instrumentors send messages.
        expected["llm.input_messages.0.message.role"] = "user";
        expected["llm.input_messages.0.message.content"] = `hi ${i}`;
      }
      expect(span.attributes, id).toEqual(expected);
      expect(span.events, id).toEqual(
        row.events === 0
          ? []
          : [
              {
                name: "retry",
                timestamp: expect.any(String) as string,
                attributes: { n: i },
              },
            ],
      );
      if (row.events > 0)
        expect(nanos((span.events as Json[])[0]!.timestamp as string), id).toBe(
          String(BigInt(row.start_ns) + 1000n),
        );
      expect(span.evaluations, id).toEqual(
        i % 50 === 0 ? [{ name: "quality", label: "good", score: 0.5 }] : [],
      );
    }
  }, 120_000);
});

describe("refused uploads: a clear 4xx, nothing written", () => {
  it("through the SDK: bad rows and columns are its APIError (400), bad keys its AuthenticationError", async () => {
    expect(out["a row with a bad span id"]).toMatchObject({ type: "APIError" });
    expect(out["a row with a bad span id"]!.message).toMatch(
      /400.*span 1 of resource 0 has no valid span_id/s,
    );
    expect(out["no span id column"]).toMatchObject({ type: "APIError" });
    expect(out["no span id column"]!.message).toMatch(
      /400.*the upload has no \\?"context\.span_id\\?" column/s,
    );
    expect(out["a column of an unsupported type"]).toMatchObject({ type: "APIError" });
    expect(out["a column of an unsupported type"]!.message).toMatch(
      /400.*column \\?"attributes\.when\\?" has Arrow type Timestamp/s,
    );
    expect(out["read-only key"]).toMatchObject({ type: "AuthenticationError" });
    expect(out["read-only key"]!.message).toMatch(/403.*PROJECT_SPAN_CREATE/s);
    expect(out["wrong key"]).toMatchObject({ type: "AuthenticationError" });
    expect(out["wrong key"]!.message).toMatch(/401/);
    // None of them created the project they named, let alone stored a span in it.
    await expect(projectIdOf(api.stack, spaceId, badProject)).rejects.toThrow(/no project/);
  });

  /** An Arrow IPC stream of `columns` as the SDK posts it. */
  const post = (columns: Table, key = api.stack.apiKey) => {
    columns.schema.metadata.set("arize-schema", arizeSchema(badProject));
    return fetch(`${api.stack.baseUrl}/v1/pandas_arrow`, {
      method: "POST",
      headers: { authorization: key, "arize-space-id": spaceId },
      body: tableToIPC(columns, "stream"),
    });
  };
  const problem = async (res: Response) => ({
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Json,
  });
  const spanColumns = (extra: Record<string, Vector> = {}): Record<string, Vector> => {
    const start = BigInt(Date.now() - 60_000) * 1_000_000n;
    return {
      "context.span_id": vectorFromArray(["aaaaaaaaaaaaaaa1"], new Utf8()),
      "context.trace_id": vectorFromArray(["b".repeat(32)], new Utf8()),
      name: vectorFromArray(["raw"], new Utf8()),
      start_time: vectorFromArray([start], new Int64()),
      end_time: vectorFromArray([start + 1000n], new Int64()),
      ...extra,
    };
  };

  it("raw: a schema without context.span_id is a 400 Problem naming it", async () => {
    const { "context.span_id": _, ...columns } = spanColumns();
    const res = await problem(await post(new Table(columns)));
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toBe(
      'the upload has no "context.span_id" column, which every span needs',
    );
  });

  it("raw: a column of an unsupported Arrow type is a 400 Problem naming it and its type", async () => {
    const columns = spanColumns({
      "attributes.blob": vectorFromArray([new Uint8Array([1, 2])], new Binary()),
    });
    const res = await problem(await post(new Table(columns)));
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toMatch(/^column "attributes\.blob" has Arrow type Binary/);
  });

  it("raw: a body that is no Arrow stream is a 400 Problem", async () => {
    const res = await fetch(`${api.stack.baseUrl}/v1/pandas_arrow`, {
      method: "POST",
      headers: { authorization: api.stack.apiKey, "arize-space-id": spaceId },
      body: "not arrow",
    });
    expectProblem(await problem(res), 400, "invalid-request");
  });

  it("raw: the same spans, well formed, are stored (the refusals above were the columns')", async () => {
    const res = await post(new Table(spanColumns()));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ spans_logged: 1 });
    const spans = await allSpans(await projectIdOf(api.stack, spaceId, badProject));
    expect(spans.map((s) => [s.context.span_id, s.name])).toEqual([["aaaaaaaaaaaaaaa1", "raw"]]);
  });
});
