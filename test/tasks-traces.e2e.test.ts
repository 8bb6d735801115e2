/**
 * Trace- and session-shaped evaluators end to end: spans of five traces (two of them one
 * session) sent through OTLP; a CODE_EVALUATION task with a MANAGED evaluator of each
 * granularity, `query_mappings` and a `query_filters` filter that leaves one trace out; the
 * exact labels on the traces' and sessions' root spans, the run's counts, a second trigger
 * finding everything labeled, and the item limit (`max_spans`) at its edges.
 */
import { context, trace } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { uuidOf } from "./identity-fixtures.ts";
import { postOtlp, projectIdOf, recentWindow } from "./spans-support.ts";

let api: Api;
let db: pg.Pool;
let spaceId: string;
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

beforeAll(async () => {
  api = await startApi({ env: { ARGUS_TASK_RUN_LEASE_MS: "1500" } });
  db = new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=tasks",
    max: 2,
  });
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

/** A trace to send: its root's output, its session, and its children (kind and output). */
interface TraceSpec {
  root: string;
  session?: string;
  children: { kind: string; output: string }[];
}

/**
 * The traces, oldest first (each span 1 ms after the last, from a minute ago), as one OTLP
 * request; the project's id and each trace's root span id, in order.
 */
async function sendTraces(projectName: string, specs: TraceSpec[]) {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "openinference.project.name": projectName }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer("argus-e2e");
  let at = Date.now() - 60_000;
  const roots: string[] = [];
  specs.forEach((t, i) => {
    const session = t.session ? { "session.id": t.session } : {};
    const root = tracer.startSpan(`root-${i}`, {
      startTime: at++,
      attributes: { "openinference.span.kind": "CHAIN", "output.value": t.root, ...session },
    });
    roots.push(root.spanContext().spanId);
    const parent = trace.setSpan(context.active(), root);
    t.children.forEach((c, j) => {
      const child = tracer.startSpan(
        `child-${i}-${j}`,
        {
          startTime: at++,
          attributes: { "openinference.span.kind": c.kind, "output.value": c.output, ...session },
        },
        parent,
      );
      child.end(at + 5);
    });
    root.end(at + 10);
  });
  await provider.forceFlush();
  const body = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
  await provider.shutdown();
  const target = { baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey };
  await postOtlp(target, spaceId, body);
  return { projectId: await projectIdOf(target, spaceId, projectName), roots };
}

/** A MANAGED CONTAINS_ANY_KEYWORD evaluator over `text` at `granularity` (none: not given). */
const keywordEvaluator = async (column: string, keyword: string, granularity?: string) =>
  (
    await asAdmin("POST", "/v2/evaluators", {
      space_id: spaceId,
      name: unique(column),
      type: "CODE",
      version: {
        commit_message: "c",
        code_config: {
          type: "MANAGED",
          name: column,
          managed_evaluator: "CONTAINS_ANY_KEYWORD",
          variables: ["text"],
          static_params: [{ name: "keywords", type: "STRING_ARRAY", default_value: [keyword] }],
          ...(granularity ? { data_granularity: granularity } : {}),
        },
      },
    })
  ).id as string;

const outputsOf = (query_ids: string[]) => [
  { variable_name: "text", query_ids, attribute_path: "attributes.output.value" },
];

const window = () => ({
  data_start_time: new Date(Date.now() - 3_600_000).toISOString(),
  data_end_time: new Date(Date.now() + 60_000).toISOString(),
});

const TERMINAL = ["COMPLETED", "FAILED", "CANCELLED"];

/** The run once `done` holds for it (a finished run that never met it throws). */
async function pollRun(runId: string, done: (run: Json) => boolean, ms = 60_000): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const run = await asAdmin("GET", `/v2/task-runs/${runId}`);
    if (done(run)) return run;
    if (TERMINAL.includes(run.status) || Date.now() > deadline)
      throw new Error(`run not as awaited: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const finished = (run: Json) => TERMINAL.includes(run.status);

async function triggered(taskId: string, body: Json): Promise<Json> {
  const runId = (await asAdmin("POST", `/v2/tasks/${taskId}/trigger`, body)).id as string;
  return pollRun(runId, finished);
}

/** Per root span (`root-<i>`), its evaluations by name: `name → label`. */
async function labels(projectId: string): Promise<Record<string, Record<string, string>>> {
  const listed = await asAdmin("POST", "/v2/spans?limit=100", {
    project_id: projectId,
    ...recentWindow(),
  });
  const out: Record<string, Record<string, string>> = {};
  for (const s of listed.spans as Json[])
    if ((s.evaluations as Json[]).length > 0)
      out[s.name] = Object.fromEntries(
        (s.evaluations as Json[]).map((e) => [e.name, `${e.label}/${e.score}`]),
      );
  return out;
}

const itemsOf = async (runId: string) =>
  (
    await db.query<{ item_id: string }>(
      "select item_id from task_run_items where run_id = $1 order by item_id",
      [uuidOf(runId)],
    )
  ).rows.map((r) => r.item_id);

// Five traces, oldest first; 0 and 1 are session s1, 4 is session s2. Only 0 has "refund" in an
// LLM span's output; 3 has no LLM span (the filter leaves it out) but "refund" at its root.
const SPECS: TraceSpec[] = [
  { root: "hello", session: "s1", children: [{ kind: "LLM", output: "we can refund you" }] },
  { root: "bye", session: "s1", children: [{ kind: "LLM", output: "anything else?" }] },
  { root: "ok", children: [{ kind: "LLM", output: "no money back" }] },
  { root: "refund done", children: [{ kind: "TOOL", output: "x" }] },
  { root: "plain", session: "s2", children: [{ kind: "LLM", output: "plain" }] },
];

describe("trace and session evaluators on a project task", () => {
  it("evaluate whole traces and sessions admitted by query_filters; labels on the root spans; a repeat skips them", async () => {
    const { projectId, roots } = await sendTraces(unique("traces"), SPECS);
    const perTrace = await keywordEvaluator("trace_refund", "refund", "TRACE");
    const perSession = await keywordEvaluator("session_refund", "refund", "SESSION");
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("trace-task"),
      project_id: projectId,
      query_filters: { filters: [{ id: "A", filter: "span_kind = 'LLM'" }] },
      evaluators: [
        { evaluator_id: perTrace, query_mappings: outputsOf(["A"]) },
        // No ids: any declared filter's spans (here A's), across the session's traces.
        { evaluator_id: perSession, query_mappings: outputsOf([]) },
      ],
    });
    // A lone filter's expression is echoed as its id.
    expect(task.query_filters).toEqual({
      filters: [{ id: "A", filter: "span_kind = 'LLM'" }],
      expression: "A",
    });
    expect(task.query_filter).toBeNull();
    const w = window();
    const run = await triggered(task.id, w);
    // Four traces (the one without an LLM span is not admitted) and two sessions.
    expect(run).toMatchObject({
      status: "COMPLETED",
      num_successes: 6,
      num_errors: 0,
      num_skipped: 0,
    });
    // One item per trace (its root span) or session (its id) and evaluator: what a resumed run
    // skips.
    expect(await itemsOf(run.id)).toEqual(
      [roots[0], roots[1], roots[2], roots[4], "s1", "s2"].sort(),
    );
    expect(await labels(projectId)).toEqual({
      // Trace 0 and session s1 (written on the root of its earliest trace, 0).
      "root-0": { trace_refund: "true/1", session_refund: "true/1" },
      "root-1": { trace_refund: "false/0" },
      "root-2": { trace_refund: "false/0" },
      "root-4": { trace_refund: "false/0", session_refund: "false/0" },
    });
    // Each evaluation names the task that wrote it by the task's public id.
    const listed = await asAdmin("POST", "/v2/spans?limit=100", {
      project_id: projectId,
      ...recentWindow(),
    });
    const metadata = (listed.spans as Json[]).flatMap((s) =>
      (s.evaluations as Json[]).map((e) => e.metadata),
    );
    expect(metadata).toHaveLength(6);
    expect(new Set(metadata.map((m) => JSON.stringify(m)))).toEqual(
      new Set([JSON.stringify({ task_id: task.id })]),
    );

    // Everything labeled: the spec's rule (CANCELLED, zero counts); override evaluates anew.
    const again = await triggered(task.id, w);
    expect(again).toMatchObject({
      status: "CANCELLED",
      num_successes: 0,
      num_errors: 0,
      num_skipped: 0,
    });
    expect(again.failure_reason).toMatch(/override_evaluations/);
    const anew = await triggered(task.id, { ...w, override_evaluations: true });
    expect(anew).toMatchObject({ status: "COMPLETED", num_successes: 6, num_skipped: 0 });

    // Two filters and an expression: traces with an LLM span and no TOOL span, or a TOOL one.
    await asAdmin("PATCH", `/v2/tasks/${task.id}`, {
      query_filters: {
        filters: [
          { id: "A", filter: "span_kind = 'LLM'" },
          { id: "B", filter: "span_kind = 'TOOL'" },
        ],
        expression: "(A and not B) or B",
      },
      evaluators: [{ evaluator_id: perTrace, query_mappings: outputsOf(["A", "B"]) }],
    });
    const both = await triggered(task.id, { ...w, override_evaluations: true });
    expect(both).toMatchObject({ status: "COMPLETED", num_successes: 5, num_errors: 0 });
    // Trace 3 now: its TOOL span's output ("x"), not its root's "refund done".
    expect((await labels(projectId))["root-3"]).toEqual({ trace_refund: "false/0" });
  });

  it("takes at most max_spans traces, newest first (1, all, all + 1; 0 is refused)", async () => {
    const { projectId, roots } = await sendTraces(unique("limit"), SPECS);
    const perTrace = await keywordEvaluator("any_refund", "refund", "TRACE");
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("limit-task"),
      project_id: projectId,
      // No filters: every trace, each read across all of its spans.
      evaluators: [{ evaluator_id: perTrace, query_mappings: outputsOf([]) }],
    });
    const w = { ...window(), override_evaluations: true };
    const refused = await api.req("POST", `/v2/tasks/${task.id}/trigger`, {
      body: { ...w, max_spans: 0 },
    });
    expectProblem(refused, 400, "invalid-request");
    const one = await triggered(task.id, { ...w, max_spans: 1 });
    expect(one).toMatchObject({ status: "COMPLETED", num_successes: 1 });
    expect(await itemsOf(one.id)).toEqual([roots[4]]);
    for (const max of [5, 6]) {
      const all = await triggered(task.id, { ...w, max_spans: max });
      expect(all, `max_spans ${max}`).toMatchObject({ status: "COMPLETED", num_successes: 5 });
      expect(await itemsOf(all.id)).toEqual([...roots].sort());
    }
    const byRoot = await labels(projectId);
    expect(Object.fromEntries(Object.entries(byRoot).map(([k, v]) => [k, v.any_refund]))).toEqual({
      "root-0": "true/1",
      "root-1": "false/0",
      "root-2": "false/0",
      "root-3": "true/1",
      "root-4": "false/0",
    });
    // A sampling rate of 0 takes none.
    await asAdmin("PATCH", `/v2/tasks/${task.id}`, { sampling_rate: 0 });
    const none = await triggered(task.id, w);
    expect(none).toMatchObject({ status: "COMPLETED", num_successes: 0, num_skipped: 0 });
  });

  it("an evaluator whose granularity is not TRACE or SESSION fails the run, saying why", async () => {
    const { projectId } = await sendTraces(unique("span-granularity"), SPECS.slice(0, 1));
    const spanLevel = await keywordEvaluator("span_level", "refund");
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("mismatch"),
      project_id: projectId,
      evaluators: [{ evaluator_id: spanLevel, query_mappings: outputsOf([]) }],
    });
    const run = await triggered(task.id, window());
    expect(run.status).toBe("FAILED");
    expect(run.failure_reason).toMatch(/data_granularity must be TRACE or SESSION/);
    // The evaluator by its name or public id: no internal uuid in what the API answers.
    expect(run.failure_reason).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);
  });
});

describe("a worker killed mid trace run", () => {
  it("another worker finishes it; no trace is evaluated twice", async () => {
    const total = 4000;
    const specs: TraceSpec[] = Array.from({ length: total }, (_, i) => ({
      root: `r${i}`,
      children: [{ kind: "LLM", output: i % 2 === 0 ? "refund" : "no" }],
    }));
    const { projectId } = await sendTraces(unique("killed"), specs);
    const perTrace = await keywordEvaluator("killed_refund", "refund", "TRACE");
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("killed-task"),
      project_id: projectId,
      query_filters: { filters: [{ id: "A", filter: "span_kind = 'LLM'" }] },
      evaluators: [{ evaluator_id: perTrace, query_mappings: outputsOf(["A"]) }],
    });
    const runId = (await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, window())).id as string;
    await pollRun(runId, (r) => r.status === "RUNNING" && r.num_successes > 0);
    await api.stack.processes["task-runner"]!.stop("SIGKILL");
    const { rows } = await db.query<{ status: string }>(
      "select status from task_runs where id = $1",
      [uuidOf(runId)],
    );
    expect(rows[0]!.status).toBe("RUNNING");
    await api.stack.restart("task-runner");
    const done = await pollRun(runId, finished, 120_000);
    expect(done).toMatchObject({ status: "COMPLETED", num_successes: total, num_errors: 0 });
    const items = await db.query<{ n: number; distinct_items: number }>(
      "select count(*)::int as n, count(distinct item_id)::int as distinct_items from task_run_items where run_id = $1",
      [uuidOf(runId)],
    );
    expect(items.rows[0]).toEqual({ n: total, distinct_items: total });
    // 4000 traces, a kill and a restart: the run may take the whole of its own 120 s poll.
  }, 240_000);
});
