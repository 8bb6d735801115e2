import { describe, expect, it } from "vitest";
import type { TaskSettings } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import {
  evaluateManaged,
  managedConfigOf,
  type ManagedConfig,
} from "../src/worker/managedEvaluators.ts";
import { runDecider, type RunCommand, type RunState } from "../src/taskRuns/taskRunDecider.ts";
import {
  checkTask,
  taskDecider,
  type NewTask,
  type Target,
  type TaskCommand,
  type TaskState,
} from "../src/tasks/taskDecider.ts";

const problem = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return err instanceof DomainError ? err.type : `thrown ${String(err)}`;
  }
  return "ok";
};

const evaluator = (id: string, extra: Partial<TaskSettings["evaluators"][number]> = {}) => ({
  evaluator_id: id,
  evaluator_name: id,
  evaluator_version_id: null,
  query_filter: null,
  column_mappings: null,
  query_mappings: null,
  ...extra,
});
const settings = (over: Partial<TaskSettings> = {}): TaskSettings => ({
  name: "t",
  sampling_rate: null,
  is_continuous: false,
  query_filter: null,
  query_filters: null,
  evaluators: [evaluator("a")],
  ...over,
});
const dataset: Target = { kind: "dataset", datasetId: "d", experimentIds: ["x"] };
const projectTarget: Target = { kind: "project", projectId: "p" };
const task = (over: Partial<NewTask> = {}, s: Partial<TaskSettings> = {}): NewTask => ({
  type: "CODE_EVALUATION",
  target: dataset,
  settings: settings(s),
  runConfiguration: null,
  ...over,
});

describe("a task's shape (the public API's rules)", () => {
  it("accepts the plain dataset and project evaluation tasks", () => {
    expect(problem(() => checkTask(task()))).toBe("ok");
    expect(problem(() => checkTask(task({ target: projectTarget }, { sampling_rate: 0 })))).toBe(
      "ok",
    );
    expect(
      problem(() =>
        checkTask(task({ target: projectTarget }, { sampling_rate: 1, is_continuous: true })),
      ),
    ).toBe("ok");
  });
  it("refuses what the rules exclude (400)", () => {
    const bad: [string, NewTask][] = [
      ["no evaluators", task({}, { evaluators: [] })],
      ["duplicate evaluators", task({}, { evaluators: [evaluator("a"), evaluator("a")] })],
      ["blank name", task({}, { name: "  " })],
      ["no experiments", task({ target: { ...dataset, experimentIds: [] } })],
      ["sampling on a dataset", task({}, { sampling_rate: 0.5 })],
      ["continuous on a dataset", task({}, { is_continuous: true })],
      ["sampling above 1", task({ target: projectTarget }, { sampling_rate: 1.01 })],
      ["sampling below 0", task({ target: projectTarget }, { sampling_rate: -0.01 })],
      ["both filters", task({}, { query_filter: "a", query_filters: { filters: [] } })],
      ["run_configuration on an evaluation task", task({ runConfiguration: {} })],
      [
        "mixed evaluator shapes",
        task({}, { evaluators: [evaluator("a"), evaluator("b", { query_mappings: [] })] }),
      ],
      [
        "a trace evaluator with column mappings",
        task({}, { evaluators: [evaluator("a", { query_mappings: [], column_mappings: {} })] }),
      ],
      [
        "trace evaluators with a span filter",
        task({}, { query_filter: "x", evaluators: [evaluator("a", { query_mappings: [] })] }),
      ],
      ["span evaluators with trace filters", task({}, { query_filters: { filters: [] } })],
      ["RUN_EXPERIMENT on a project", task({ type: "RUN_EXPERIMENT", target: projectTarget })],
      [
        "RUN_EXPERIMENT with evaluators",
        task({ type: "RUN_EXPERIMENT", target: { ...dataset, experimentIds: [] } }),
      ],
      [
        "RUN_EXPERIMENT with experiments",
        task({ type: "RUN_EXPERIMENT", target: dataset }, { evaluators: [] }),
      ],
    ];
    for (const [why, t] of bad)
      expect(
        problem(() => checkTask(t)),
        why,
      ).toBe("invalid-request");
    expect(
      problem(() =>
        checkTask(
          task(
            {
              type: "RUN_EXPERIMENT",
              target: { ...dataset, experimentIds: [] },
              runConfiguration: {},
            },
            { evaluators: [] },
          ),
        ),
      ),
    ).toBe("ok");
  });
});

describe("a task's filters are judged when written", () => {
  const detail = (t: NewTask) => {
    try {
      checkTask(t);
      return "ok";
    } catch (err) {
      return (err as Error).message;
    }
  };
  it("in the search language, a syntax error pointing at its position (400)", () => {
    expect(
      detail(task({ target: projectTarget }, { query_filter: "name = 'root' and latency_ms > 5" })),
    ).toBe("ok");
    expect(detail(task({ target: projectTarget }, { query_filter: "name = " }))).toMatch(
      /^query_filter: filter: .* at position 8/,
    );
    expect(problem(() => checkTask(task({}, { query_filter: "name = 'a' and" })))).toBe(
      "invalid-request",
    );
    expect(detail(task({}, { evaluators: [evaluator("a", { query_filter: "(x = 1" })] }))).toMatch(
      /^evaluators\[0\]\.query_filter: filter: /,
    );
    const trace = (filter: string) =>
      task(
        { target: projectTarget },
        {
          query_filters: { filters: [{ id: "A", filter }] },
          evaluators: [evaluator("a", { query_mappings: [] })],
        },
      );
    expect(detail(trace("span_kind = 'LLM'"))).toBe("ok");
    expect(detail(trace("span_kind = = 'LLM'"))).toMatch(/^query_filters filter A: filter: /);
  });
});

describe("a trace/session task's query_filters and query_mappings", () => {
  const mapping = (variable_name: string, query_ids: string[]) => ({
    variable_name,
    query_ids,
    attribute_path: "attributes.output.value",
  });
  const traceTask = (query_filters: TaskSettings["query_filters"], ids: string[] = []) =>
    task(
      { target: projectTarget },
      { query_filters, evaluators: [evaluator("a", { query_mappings: [mapping("v", ids)] })] },
    );
  const filters = (ids: string[], expression?: string) => ({
    filters: ids.map((id) => ({ id, filter: "span_kind = 'LLM'" })),
    ...(expression === undefined ? {} : { expression }),
  });

  it("accepts filters with their expression, and mappings naming declared ids", () => {
    expect(problem(() => checkTask(traceTask(null)))).toBe("ok");
    expect(
      problem(() => checkTask(traceTask(filters(["A", "B"], "A and not (B or A)"), ["B"]))),
    ).toBe("ok");
    expect(problem(() => checkTask(traceTask(filters(["A", "C"], "A OR C"), ["A", "C"])))).toBe(
      "ok",
    );
  });
  it("keeps a lone filter's expression as its id, as the public API echoes it", () => {
    expect(checkTask(traceTask(filters(["C"]))).settings.query_filters).toEqual({
      ...filters(["C"]),
      expression: "C",
    });
  });
  it("refuses what the models exclude (400)", () => {
    const bad: [string, NewTask][] = [
      ["two filters, no expression", traceTask(filters(["A", "B"]))],
      ["a duplicate id", traceTask(filters(["A", "A"], "A"))],
      ["an undeclared id in the expression", traceTask(filters(["A"], "A and B"))],
      ["a dangling operator", traceTask(filters(["A", "B"], "A and"))],
      ["an unclosed parenthesis", traceTask(filters(["A", "B"], "(A or B"))],
      ["a mapping naming an undeclared id", traceTask(filters(["A"]), ["B"])],
      ["a mapping naming an id without filters", traceTask(null, ["A"])],
    ];
    for (const [why, t] of bad)
      expect(
        problem(() => checkTask(t)),
        why,
      ).toBe("invalid-request");
  });
});

describe("a task's updates", () => {
  const apply = (commands: TaskCommand[]): TaskState =>
    commands.reduce(
      (state, c) => taskDecider.decide(c, state).reduce(taskDecider.evolve, state),
      taskDecider.initialState,
    );
  const create = (t: NewTask): TaskCommand => ({
    type: "CreateTask",
    id: "t",
    accountId: "a",
    spaceId: "s",
    task: t,
    userId: "u",
    now: new Date(),
  });
  const runTask = task(
    {
      type: "RUN_EXPERIMENT",
      target: { ...dataset, experimentIds: [] },
      runConfiguration: { llm_generation: { messages: ["old"] } },
    },
    { evaluators: [] },
  );
  const update = (over: Partial<Extract<TaskCommand, { type: "UpdateTask" }>>): TaskCommand => ({
    type: "UpdateTask",
    changes: {},
    now: new Date(),
    ...over,
  });
  it("a RUN_EXPERIMENT task's run_configuration is replaced whole, or kept when left out", () => {
    const replaced = apply([
      create(runTask),
      update({ runConfiguration: { llm_generation: { messages: ["new"] } } }),
    ]);
    expect(replaced.status === "live" && replaced.runConfiguration).toEqual({
      llm_generation: { messages: ["new"] },
    });
    const kept = apply([create(runTask), update({ changes: { name: "renamed" } })]);
    expect(kept.status === "live" && kept.runConfiguration).toEqual({
      llm_generation: { messages: ["old"] },
    });
  });
  it("an evaluation task has no run_configuration to change (400)", () => {
    const state = apply([create(task())]);
    expect(problem(() => taskDecider.decide(update({ runConfiguration: {} }), state))).toBe(
      "invalid-request",
    );
  });
});

describe("a run's life", () => {
  const created: RunCommand = {
    type: "CreateRun",
    data: {
      id: "r",
      task_id: "t",
      account_id: "a",
      space_id: "s",
      options: {},
      data_start_time: null,
      data_end_time: null,
      created_by_user_id: "",
      created_at: "2026-11-24T00:00:00Z",
    },
  };
  const counts = { num_successes: 3, num_errors: 1, num_skipped: 0 };
  const apply = (commands: RunCommand[]): RunState =>
    commands.reduce(
      (state, c) => runDecider.decide(c, state).reduce(runDecider.evolve, state),
      runDecider.initialState,
    );
  const finish = (status: "COMPLETED" | "FAILED" | "CANCELLED"): RunCommand => ({
    type: "FinishRun",
    status,
    counts,
    experimentId: null,
    failureReason: null,
    isContinuous: false,
    now: new Date(),
  });
  const cancel: RunCommand = { type: "CancelRun", counts, isContinuous: false, now: new Date() };
  it("PENDING → RUNNING → COMPLETED; a second start appends nothing", () => {
    const state = apply([created, { type: "StartRun", now: new Date() }]);
    expect(state.status).toBe("RUNNING");
    expect(runDecider.decide({ type: "StartRun", now: new Date() }, state)).toEqual([]);
    expect(
      apply([created, { type: "StartRun", now: new Date() }, finish("COMPLETED")]).status,
    ).toBe("COMPLETED");
  });
  it("cancels from PENDING and RUNNING; a terminal run is a conflict; a finish after a cancel is nothing", () => {
    expect(apply([created, cancel]).status).toBe("CANCELLED");
    expect(apply([created, { type: "StartRun", now: new Date() }, cancel]).status).toBe(
      "CANCELLED",
    );
    for (const end of ["COMPLETED", "FAILED", "CANCELLED"] as const) {
      const done = apply([created, { type: "StartRun", now: new Date() }, finish(end)]);
      expect(problem(() => runDecider.decide(cancel, done))).toBe("resource-conflict");
    }
    const cancelled = apply([created, cancel]);
    expect(runDecider.decide(finish("COMPLETED"), cancelled)).toEqual([]);
  });
});

describe("managed evaluators", () => {
  const config = (
    kind: ManagedConfig["managed_evaluator"],
    params: ManagedConfig["static_params"] = [],
  ) => ({
    name: "e",
    managed_evaluator: kind,
    variables: ["a", "b"],
    static_params: params,
  });
  it("EXACT_MATCH compares exactly", () => {
    expect(evaluateManaged(config("EXACT_MATCH"), ["x", "x"])).toMatchObject({
      label: "true",
      score: 1,
    });
    expect(evaluateManaged(config("EXACT_MATCH"), ["x", "X"])).toMatchObject({
      label: "false",
      score: 0,
    });
  });
  it("MATCHES_REGEX uses its pattern; a bad pattern is the item's error", () => {
    const c = config("MATCHES_REGEX", [
      { name: "pattern", type: "REGEX", default_value: "^a\\d+$" },
    ]);
    expect(evaluateManaged(c, ["a12"]).score).toBe(1);
    expect(evaluateManaged(c, ["b12"]).score).toBe(0);
    const broken = config("MATCHES_REGEX", [{ name: "pattern", default_value: "(" }]);
    expect(() => evaluateManaged(broken, ["x"])).toThrow(/bad pattern/);
    expect(() => evaluateManaged(config("MATCHES_REGEX"), ["x"])).toThrow(/pattern/);
  });
  it("JSON_PARSEABLE", () => {
    expect(evaluateManaged(config("JSON_PARSEABLE"), ['{"a":1}']).label).toBe("true");
    expect(evaluateManaged(config("JSON_PARSEABLE"), ["{a:1}"]).label).toBe("false");
  });
  it("CONTAINS_ANY_KEYWORD and CONTAINS_ALL_KEYWORDS, case-insensitively", () => {
    const kw = [{ name: "keywords", type: "STRING_ARRAY", default_value: ["Paris", "France"] }];
    expect(evaluateManaged(config("CONTAINS_ANY_KEYWORD", kw), ["in paris"]).score).toBe(1);
    expect(evaluateManaged(config("CONTAINS_ALL_KEYWORDS", kw), ["in paris"]).score).toBe(0);
    expect(evaluateManaged(config("CONTAINS_ALL_KEYWORDS", kw), ["Paris, FRANCE"]).score).toBe(1);
    const csv = [{ name: "keywords", type: "STRING", default_value: "a, b" }];
    expect(evaluateManaged(config("CONTAINS_ANY_KEYWORD", csv), ["xbx"]).score).toBe(1);
  });
  it("reads a MANAGED code_config; anything else says why it does not run", () => {
    expect(
      managedConfigOf({
        type: "MANAGED",
        name: "em",
        managed_evaluator: "EXACT_MATCH",
        variables: ["output", "expected"],
      }),
    ).toMatchObject({ name: "em", managed_evaluator: "EXACT_MATCH" });
    expect(managedConfigOf({ type: "CUSTOM", code: "x" })).toMatch(/CUSTOM/);
    expect(managedConfigOf({ type: "MANAGED", managed_evaluator: "NOPE" })).toMatch(/unknown/);
  });
});
