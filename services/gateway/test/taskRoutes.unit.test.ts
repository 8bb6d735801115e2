import { DomainError, encodeId, toGrpcError } from "@argus/platform";
import type {
  CreateTaskRequest,
  ListRunsRequest,
  ListTasksRequest,
  Task,
  TaskRun,
  TriggerRunRequest,
  UpdateTaskRequest,
} from "@argus/proto/tasks/v1/tasks";
import { describe, expect, it } from "vitest";
import { NO_SUCH_ID, taskHandlers } from "../src/routes/tasks.ts";
import { AT, LATER, documentedRoutes, uuid } from "./startGateway.ts";
import { routesOnRecording } from "./recordingBackend.ts";

const TASK = uuid(1);
const RUN = uuid(2);
const PROJECT = uuid(3);
const DATASET = uuid(4);
const EXPERIMENT = uuid(5);
const EVALUATOR = uuid(6);
const EVALUATOR_VERSION = uuid(7);
const SPACE = uuid(8);
const USER = uuid(9);
const AI_INTEGRATION = uuid(10);
const PROMPT_VERSION = uuid(11);
const AGENT = uuid(12);
const DATASET_VERSION = uuid(13);
const EXAMPLE = uuid(14);
const OTHER_TASK = uuid(15);
const pub = {
  task: encodeId("Task", TASK),
  run: encodeId("TaskRun", RUN),
  project: encodeId("Project", PROJECT),
  dataset: encodeId("Dataset", DATASET),
  experiment: encodeId("Experiment", EXPERIMENT),
  evaluator: encodeId("Evaluator", EVALUATOR),
  evaluatorVersion: encodeId("EvaluatorVersion", EVALUATOR_VERSION),
  space: encodeId("Space", SPACE),
  user: encodeId("User", USER),
  aiIntegration: encodeId("AiIntegration", AI_INTEGRATION),
  promptVersion: encodeId("PromptVersion", PROMPT_VERSION),
  agent: encodeId("Integration", AGENT),
  datasetVersion: encodeId("DatasetVersion", DATASET_VERSION),
  example: encodeId("DatasetExample", EXAMPLE),
  otherTask: encodeId("Task", OTHER_TASK),
};

const SPAN_EVALUATOR = {
  evaluatorId: EVALUATOR,
  evaluatorName: "hallucination",
  evaluatorVersionId: EVALUATOR_VERSION,
  queryFilter: "span_kind = 'LLM'",
  columnMappingsJson: JSON.stringify({ input: "attributes.input.value" }),
};
const QUERY_MAPPINGS = [
  { variable_name: "conversation", query_ids: ["A"], attribute_path: "attributes.input.value" },
];
const QUERY_FILTERS = { filters: [{ id: "A", filter: "span_kind = 'LLM'" }], expression: "A" };

/** A project TEMPLATE_EVALUATION task of the span shape, as the service answers it. */
const task = (over: Partial<Task> = {}): Task => ({
  id: TASK,
  name: "hallucinations",
  type: "TEMPLATE_EVALUATION",
  spaceId: SPACE,
  projectId: PROJECT,
  datasetId: "",
  samplingRate: 0.5,
  isContinuous: true,
  queryFilter: "status = 'OK'",
  evaluators: [SPAN_EVALUATOR],
  experimentIds: [],
  lastRunAt: "",
  createdAt: AT,
  updatedAt: LATER,
  createdByUserId: USER,
  ...over,
});

/** A dataset CODE_EVALUATION task of the trace/session shape. */
const traceTask = (over: Partial<Task> = {}): Task =>
  task({
    type: "CODE_EVALUATION",
    projectId: "",
    datasetId: DATASET,
    // Stored by mistake: a dataset task has no sampling, whatever the service says.
    samplingRate: 1,
    isContinuous: false,
    queryFilter: undefined,
    queryFiltersJson: JSON.stringify(QUERY_FILTERS),
    evaluators: [
      {
        evaluatorId: EVALUATOR,
        evaluatorName: "coherence",
        evaluatorVersionId: "",
        queryMappingsJson: JSON.stringify(QUERY_MAPPINGS),
      },
    ],
    experimentIds: [EXPERIMENT],
    lastRunAt: LATER,
    createdByUserId: "",
    ...over,
  });

const LLM_CONFIG = {
  experiment_type: "LLM_GENERATION",
  ai_integration_id: AI_INTEGRATION,
  model_name: "gpt-4o",
  messages: [{ role: "USER", content: "{question}" }],
  input_variable_format: "F_STRING",
  prompt_version_id: PROMPT_VERSION,
};

const runExperimentTask = (config: object = LLM_CONFIG, over: Partial<Task> = {}): Task =>
  task({
    type: "RUN_EXPERIMENT",
    projectId: "",
    datasetId: DATASET,
    samplingRate: undefined,
    isContinuous: false,
    queryFilter: undefined,
    evaluators: [],
    runConfigurationJson: JSON.stringify(config),
    ...over,
  });

const run = (over: Partial<TaskRun> = {}): TaskRun => ({
  id: RUN,
  taskId: TASK,
  status: "PENDING",
  experimentId: "",
  runStartedAt: "",
  runFinishedAt: "",
  dataStartTime: AT,
  dataEndTime: LATER,
  numSuccesses: 0,
  numErrors: 0,
  numSkipped: 0,
  createdAt: LATER,
  createdByUserId: USER,
  ...over,
});

const { calls, answers, gateway } = routesOnRecording(taskHandlers);
const { ops, op, call, edge } = documentedRoutes(gateway, { task_id: pub.task, run_id: pub.run });

const spanEvaluator = { evaluator_id: pub.evaluator, column_mappings: { input: "x" } };
const traceEvaluator = { evaluator_id: pub.evaluator, query_mappings: QUERY_MAPPINGS };
const publicLlmConfig = {
  ...LLM_CONFIG,
  ai_integration_id: pub.aiIntegration,
  prompt_version_id: pub.promptVersion,
};
const createBody = (type: string, over: object = {}) => ({
  body:
    type === "RUN_EXPERIMENT"
      ? { type, name: "n", dataset_id: pub.dataset, run_configuration: publicLlmConfig, ...over }
      : { type, name: "n", project_id: pub.project, evaluators: [spanEvaluator], ...over },
});

describe("the document", () => {
  it("serves the SDK's nine operations with its ids, methods and paths", () => {
    expect(
      ops
        .filter((o) => /^\/v2\/task/.test(o.path))
        .map((o) => [o.operationId, o.method, o.path, o.paginated, o.hasBody])
        .sort(),
    ).toEqual(
      [
        ["list_tasks", "get", "/v2/tasks", true, false],
        ["create_task", "post", "/v2/tasks", false, true],
        ["get_task", "get", "/v2/tasks/{task_id}", false, false],
        ["update_task", "patch", "/v2/tasks/{task_id}", false, true],
        ["delete_task", "delete", "/v2/tasks/{task_id}", false, false],
        ["trigger_task_run", "post", "/v2/tasks/{task_id}/trigger", false, true],
        ["list_task_runs", "get", "/v2/tasks/{task_id}/runs", true, false],
        ["get_task_run", "get", "/v2/task-runs/{run_id}", false, false],
        ["cancel_task_run", "post", "/v2/task-runs/{run_id}/cancel", false, false],
      ].sort(),
    );
  });

  it("takes each type's create body, and refuses another type's fields", () => {
    for (const type of ["TEMPLATE_EVALUATION", "CODE_EVALUATION", "RUN_EXPERIMENT"])
      expect(edge("create_task", createBody(type)), type).toBe("ok");
    expect(
      edge("create_task", createBody("CODE_EVALUATION", { evaluators: [traceEvaluator] })),
    ).toBe("ok");
    expect(
      edge("create_task", createBody("TEMPLATE_EVALUATION", { run_configuration: LLM_CONFIG })),
    ).toBe("invalid-request");
    expect(edge("create_task", createBody("RUN_EXPERIMENT", { evaluators: [spanEvaluator] }))).toBe(
      "invalid-request",
    );
    expect(
      edge("create_task", createBody("RUN_EXPERIMENT", { run_configuration: undefined })),
    ).toBe("invalid-request");
    expect(edge("create_task", createBody("TEMPLATE_EVALUATION", { evaluators: [] }))).toBe(
      "invalid-request",
    );
    expect(edge("create_task", createBody("SPAN_EVALUATION"))).toBe("invalid-request");
  });

  it("refuses system fields and unknown fields with 400", () => {
    for (const field of ["id", "created_at", "updated_at", "nope"]) {
      expect(edge("create_task", createBody("TEMPLATE_EVALUATION", { [field]: "x" })), field).toBe(
        "invalid-request",
      );
      expect(edge("create_task", createBody("RUN_EXPERIMENT", { [field]: "x" })), field).toBe(
        "invalid-request",
      );
    }
    for (const field of ["id", "type", "created_at", "updated_at", "project_id"])
      expect(edge("update_task", { body: { [field]: "x" } }), field).toBe("invalid-request");
  });

  it("takes a name that is not blank", () => {
    for (const type of ["TEMPLATE_EVALUATION", "CODE_EVALUATION", "RUN_EXPERIMENT"]) {
      expect(edge("create_task", createBody(type, { name: "" })), type).toBe("invalid-request");
      expect(edge("create_task", createBody(type, { name: "  " })), type).toBe("invalid-request");
    }
    expect(edge("update_task", { body: { name: "" } })).toBe("invalid-request");
    expect(edge("update_task", { body: { name: "n" } })).toBe("ok");
  });

  it("takes a sampling rate from 0 to 1", () => {
    const rates = [-0.1, 0, 1, 1.1];
    const outcomes = ["invalid-request", "ok", "ok", "invalid-request"];
    expect(
      rates.map((r) =>
        edge("create_task", createBody("TEMPLATE_EVALUATION", { sampling_rate: r })),
      ),
    ).toEqual(outcomes);
    expect(rates.map((r) => edge("update_task", { body: { sampling_rate: r } }))).toEqual(outcomes);
  });

  it("takes one evaluator shape per entry, and the trace/session filters' limits", () => {
    const mixed = { ...spanEvaluator, query_mappings: QUERY_MAPPINGS };
    expect(edge("update_task", { body: { evaluators: [mixed] } })).toBe("invalid-request");
    expect(edge("update_task", { body: { evaluators: [traceEvaluator, spanEvaluator] } })).toBe(
      "ok",
    );
    expect(edge("update_task", { body: { evaluators: [] } })).toBe("invalid-request");
    const filters = (n: number, expression?: string) => ({
      body: {
        query_filters: {
          filters: Array.from({ length: n }, (_, i) => ({ id: "ABCDEF"[i], filter: "x" })),
          ...(expression === undefined ? {} : { expression }),
        },
      },
    });
    expect([0, 1, 5].map((n) => edge("update_task", filters(n)))).toEqual([
      "invalid-request",
      "ok",
      "ok",
    ]);
    // A sixth filter is refused, whatever its id.
    expect(edge("update_task", filters(6))).toBe("invalid-request");
    expect(edge("update_task", filters(1, "A".repeat(512)))).toBe("ok");
    expect(edge("update_task", filters(1, "A".repeat(513)))).toBe("invalid-request");
    expect(edge("update_task", { body: { query_filters: null, query_filter: null } })).toBe("ok");
    const badId = { query_filters: { filters: [{ id: "F", filter: "x" }] } };
    expect(edge("update_task", { body: badId })).toBe("invalid-request");
  });

  it("updates at least one field", () => {
    expect(edge("update_task", { body: {} })).toBe("invalid-request");
    expect(edge("update_task", { body: { run_configuration: publicLlmConfig } })).toBe("ok");
    expect(
      edge("update_task", { body: { run_configuration: publicLlmConfig, evaluators: [] } }),
    ).toBe("invalid-request");
  });

  it("checks each run configuration variant", () => {
    const rc = (run_configuration: object) => createBody("RUN_EXPERIMENT", { run_configuration });
    expect(
      edge(
        "create_task",
        rc({
          experiment_type: "TEMPLATE_EVALUATION",
          ai_integration_id: pub.aiIntegration,
          template: "Is {{output}} relevant?",
          provide_explanation: true,
          classification_choices: { relevant: 1, irrelevant: 0 },
        }),
      ),
    ).toBe("ok");
    expect(
      edge(
        "create_task",
        rc({ experiment_type: "AGENT_CALL", integration_id: pub.agent, input_template: {} }),
      ),
    ).toBe("ok");
    expect(
      edge("create_task", rc({ experiment_type: "AGENT_CALL", integration_id: pub.agent })),
    ).toBe("invalid-request");
    expect(edge("create_task", rc({ ...publicLlmConfig, messages: [] }))).toBe("invalid-request");
    expect(edge("create_task", rc({ ...publicLlmConfig, experiment_type: "OTHER" }))).toBe(
      "invalid-request",
    );
  });

  it("takes a trigger body of either type, or none, but not both types at once", () => {
    expect(edge("trigger_task_run", {})).toBe("ok");
    expect(edge("trigger_task_run", { body: {} })).toBe("ok");
    expect(edge("trigger_task_run", { body: { max_spans: 1, override_evaluations: true } })).toBe(
      "ok",
    );
    expect(edge("trigger_task_run", { body: { experiment_name: "e", max_examples: 1 } })).toBe(
      "ok",
    );
    expect(edge("trigger_task_run", { body: { experiment_name: "e", max_spans: 1 } })).toBe(
      "invalid-request",
    );
    // A run-experiment trigger without its required experiment name.
    expect(edge("trigger_task_run", { body: { max_examples: 50 } })).toBe("invalid-request");
    expect(edge("trigger_task_run", { body: { max_spans: 0 } })).toBe("invalid-request");
    expect(edge("trigger_task_run", { body: { experiment_name: "e", max_examples: 0 } })).toBe(
      "invalid-request",
    );
  });

  it("takes an experiment name of 1 to 255 characters, without quotes or backslashes", () => {
    const name = (experiment_name: string) =>
      edge("trigger_task_run", { body: { experiment_name } });
    expect(name("n".repeat(255))).toBe("ok");
    expect(name("😀".repeat(255))).toBe("ok");
    expect(name("n".repeat(256))).toBe("invalid-request");
    expect(name("")).toBe("invalid-request");
    expect(name('a"b')).toBe("invalid-request");
    expect(name("a\\b")).toBe("invalid-request");
  });

  it("pages tasks and runs by 1 to 100, 50 by default, and filters by enum values", () => {
    for (const id of ["list_tasks", "list_task_runs"]) {
      expect(
        ["0", "1", "100", "101"].map((limit) => edge(id, { query: { limit } })),
        id,
      ).toEqual(["invalid-request", "ok", "ok", "invalid-request"]);
      const params: Record<string, string> = id === "list_tasks" ? {} : { task_id: pub.task };
      expect(op(id).validate({ params, query: {}, body: undefined }).query.limit).toBe(50);
    }
    expect(edge("list_tasks", { query: { type: "RUN_EXPERIMENT" } })).toBe("ok");
    expect(edge("list_tasks", { query: { type: "SPAN" } })).toBe("invalid-request");
    expect(edge("list_task_runs", { query: { status: "CANCELLED" } })).toBe("ok");
    expect(edge("list_task_runs", { query: { status: "DONE" } })).toBe("invalid-request");
    expect(edge("list_tasks", { query: { name: "n".repeat(256) } })).toBe("invalid-request");
  });
});

describe("tasks", () => {
  it("lists with every filter decoded, rendering each kind of task with its nulls", async () => {
    answers.ListTasks = () => ({
      tasks: [task(), traceTask(), runExperimentTask()],
      page: { nextAfter: "t3" },
    });
    const res = await call(
      "GET",
      `/v2/tasks?space_id=${pub.space}&space_name=ml&name=hal&project_id=${pub.project}` +
        `&dataset_id=${pub.dataset}&type=TEMPLATE_EVALUATION&limit=3`,
    );
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "ListTasks",
        request: {
          page: { limit: 3, after: "" },
          spaceId: SPACE,
          spaceName: "ml",
          name: "hal",
          projectId: PROJECT,
          datasetId: DATASET,
          type: "TEMPLATE_EVALUATION",
        } satisfies ListTasksRequest,
      },
    ]);
    const [span, trace, experiment] = res.json.tasks as Record<string, unknown>[];
    expect(span).toEqual({
      id: pub.task,
      name: "hallucinations",
      type: "TEMPLATE_EVALUATION",
      project_id: pub.project,
      dataset_id: null,
      sampling_rate: 0.5,
      is_continuous: true,
      query_filter: "status = 'OK'",
      query_filters: null,
      evaluators: [
        {
          evaluator_id: pub.evaluator,
          evaluator_name: "hallucination",
          evaluator_version_id: pub.evaluatorVersion,
          query_filter: "span_kind = 'LLM'",
          column_mappings: { input: "attributes.input.value" },
          query_mappings: null,
        },
      ],
      experiment_ids: [],
      run_configuration: null,
      last_run_at: null,
      created_at: AT,
      updated_at: LATER,
      created_by_user_id: pub.user,
    });
    expect(trace).toEqual({
      id: pub.task,
      name: "hallucinations",
      type: "CODE_EVALUATION",
      project_id: null,
      dataset_id: pub.dataset,
      sampling_rate: null,
      is_continuous: false,
      query_filter: null,
      query_filters: QUERY_FILTERS,
      evaluators: [
        {
          evaluator_id: pub.evaluator,
          evaluator_name: "coherence",
          evaluator_version_id: null,
          query_filter: null,
          column_mappings: null,
          query_mappings: QUERY_MAPPINGS,
        },
      ],
      experiment_ids: [pub.experiment],
      run_configuration: null,
      last_run_at: LATER,
      created_at: AT,
      updated_at: LATER,
      created_by_user_id: null,
    });
    expect(experiment).toMatchObject({
      type: "RUN_EXPERIMENT",
      project_id: null,
      dataset_id: pub.dataset,
      sampling_rate: null,
      is_continuous: false,
      query_filter: null,
      query_filters: null,
      evaluators: [],
      experiment_ids: [],
      run_configuration: publicLlmConfig,
    });
    expect(res.json.pagination).toMatchObject({ has_more: true });

    answers.ListTasks = () => ({ tasks: [], page: { nextAfter: "" } });
    const next = (res.json.pagination as { next_cursor: string }).next_cursor;
    const again =
      `/v2/tasks?space_id=${pub.space}&space_name=ml&name=hal&project_id=${pub.project}` +
      `&dataset_id=${pub.dataset}&type=TEMPLATE_EVALUATION&cursor=${next}`;
    const second = await call("GET", again);
    expect(second.json).toEqual({ tasks: [], pagination: { has_more: false } });
    expect((calls[1]!.request as ListTasksRequest).page).toEqual({ limit: 50, after: "t3" });
  });

  it("lists every task without filters; a foreign space matches nothing, a foreign project 404s", async () => {
    answers.ListTasks = () => ({ tasks: [] });
    expect((await call("GET", "/v2/tasks")).status).toBe(200);
    expect(calls[0]!.request).toEqual({
      page: { limit: 50, after: "" },
      spaceId: "",
      spaceName: "",
      name: "",
      projectId: "",
      datasetId: "",
      type: "",
    } satisfies ListTasksRequest);
    calls.length = 0;
    const space = await call("GET", `/v2/tasks?space_id=${pub.project}`);
    expect([space.status, space.json.tasks]).toEqual([200, []]);
    const project = await call("GET", `/v2/tasks?project_id=${pub.dataset}`);
    expect([project.status, project.json.detail]).toEqual([404, "project not found"]);
    const dataset = await call("GET", `/v2/tasks?dataset_id=${pub.project}`);
    expect([dataset.status, dataset.json.detail]).toEqual([404, "dataset not found"]);
    expect(calls).toEqual([]);
  });

  it("creates a span-shape project task with its ids decoded", async () => {
    answers.CreateTask = () => task();
    const res = await call("POST", "/v2/tasks", {
      type: "TEMPLATE_EVALUATION",
      name: "hallucinations",
      project_id: pub.project,
      sampling_rate: 0.5,
      is_continuous: true,
      query_filter: "status = 'OK'",
      evaluators: [
        {
          evaluator_id: pub.evaluator,
          evaluator_version_id: pub.evaluatorVersion,
          query_filter: "span_kind = 'LLM'",
          column_mappings: { input: "attributes.input.value" },
        },
        { evaluator_id: pub.evaluator, evaluator_version_id: null },
      ],
    });
    expect(res.status).toBe(201);
    expect(calls).toEqual([
      {
        rpc: "CreateTask",
        request: {
          type: "TEMPLATE_EVALUATION",
          name: "hallucinations",
          projectId: PROJECT,
          datasetId: "",
          samplingRate: 0.5,
          isContinuous: true,
          queryFilter: "status = 'OK'",
          evaluators: [
            {
              evaluatorId: EVALUATOR,
              evaluatorName: "",
              evaluatorVersionId: EVALUATOR_VERSION,
              queryFilter: "span_kind = 'LLM'",
              columnMappingsJson: JSON.stringify({ input: "attributes.input.value" }),
            },
            { evaluatorId: EVALUATOR, evaluatorName: "", evaluatorVersionId: "" },
          ],
          experimentIds: [],
        } satisfies CreateTaskRequest,
      },
    ]);
    expect(res.json.id).toBe(pub.task);
  });

  it("creates a trace/session-shape dataset task with its filters and mappings as JSON", async () => {
    answers.CreateTask = () => traceTask();
    const res = await call("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: "coherence",
      dataset_id: pub.dataset,
      experiment_ids: [pub.experiment],
      query_filters: QUERY_FILTERS,
      evaluators: [traceEvaluator],
    });
    expect(res.status).toBe(201);
    expect(calls[0]!.request).toEqual({
      type: "CODE_EVALUATION",
      name: "coherence",
      projectId: "",
      datasetId: DATASET,
      queryFiltersJson: JSON.stringify(QUERY_FILTERS),
      evaluators: [
        {
          evaluatorId: EVALUATOR,
          evaluatorName: "",
          evaluatorVersionId: "",
          queryMappingsJson: JSON.stringify(QUERY_MAPPINGS),
        },
      ],
      experimentIds: [EXPERIMENT],
    } satisfies CreateTaskRequest);
    expect(res.json).toMatchObject({ sampling_rate: null, query_filter: null, project_id: null });
  });

  it("creates a run-experiment task, its configuration's ids decoded and answered encoded", async () => {
    answers.CreateTask = (r) =>
      runExperimentTask(JSON.parse((r as CreateTaskRequest).runConfigurationJson!) as object);
    const res = await call("POST", "/v2/tasks", {
      type: "RUN_EXPERIMENT",
      name: "baseline",
      dataset_id: pub.dataset,
      run_configuration: publicLlmConfig,
    });
    expect(res.status).toBe(201);
    const request = calls[0]!.request as CreateTaskRequest;
    expect(request).toEqual({
      type: "RUN_EXPERIMENT",
      name: "baseline",
      projectId: "",
      datasetId: DATASET,
      evaluators: [],
      experimentIds: [],
      runConfigurationJson: JSON.stringify(LLM_CONFIG),
    } satisfies CreateTaskRequest);
    expect(res.json.run_configuration).toEqual(publicLlmConfig);
    expect(res.json.evaluators).toEqual([]);
  });

  it("answers each configuration variant's ids encoded, and its unpinned version as null", async () => {
    const agent = { experiment_type: "AGENT_CALL", integration_id: AGENT, input_template: {} };
    const judge = {
      experiment_type: "TEMPLATE_EVALUATION",
      ai_integration_id: AI_INTEGRATION,
      template: "Is {{output}} relevant?",
      provide_explanation: false,
    };
    const { prompt_version_id: _unpinned, ...llm } = LLM_CONFIG;
    answers.GetTask = () => runExperimentTask(agent);
    expect((await call("GET", `/v2/tasks/${pub.task}`)).json.run_configuration).toEqual({
      ...agent,
      integration_id: pub.agent,
    });
    answers.GetTask = () => runExperimentTask(judge);
    expect((await call("GET", `/v2/tasks/${pub.task}`)).json.run_configuration).toEqual({
      ...judge,
      ai_integration_id: pub.aiIntegration,
      evaluator_version_id: null,
    });
    answers.GetTask = () => runExperimentTask(llm);
    expect((await call("GET", `/v2/tasks/${pub.task}`)).json.run_configuration).toEqual({
      ...llm,
      ai_integration_id: pub.aiIntegration,
      prompt_version_id: null,
    });
  });

  it("sends body ids that name nothing so that the service answers them in its order", async () => {
    answers.CreateTask = () => {
      throw toGrpcError(new DomainError("resource-not-found", "project not found"));
    };
    const res = await call("POST", "/v2/tasks", {
      type: "TEMPLATE_EVALUATION",
      name: "n",
      project_id: pub.dataset,
      experiment_ids: [pub.project],
      evaluators: [
        { evaluator_id: pub.project, evaluator_version_id: pub.evaluator },
        { evaluator_id: pub.evaluator, evaluator_version_id: pub.evaluatorVersion },
      ],
    });
    expect([res.status, res.json.detail]).toEqual([404, "project not found"]);
    const request = calls[0]!.request as CreateTaskRequest;
    // "" would read as "no project" or "not pinned": those name nothing with a nil uuid.
    expect(request.projectId).toBe(NO_SUCH_ID);
    expect(request.experimentIds).toEqual([""]);
    expect(request.evaluators.map((e) => [e.evaluatorId, e.evaluatorVersionId])).toEqual([
      ["", NO_SUCH_ID],
      [EVALUATOR, EVALUATOR_VERSION],
    ]);

    // A run configuration is stored as given: an id in it that names nothing never gets there.
    const rc = await call("POST", "/v2/tasks", {
      type: "RUN_EXPERIMENT",
      name: "n",
      dataset_id: pub.project,
      run_configuration: { ...publicLlmConfig, ai_integration_id: pub.agent },
    });
    expect([rc.status, rc.json.detail]).toEqual([
      404,
      "run_configuration.ai_integration_id names nothing",
    ]);
    expect(calls).toHaveLength(1);
  });

  it("gets and deletes by the path id; another type's id is a 404", async () => {
    answers.GetTask = () => task();
    expect((await call("GET", `/v2/tasks/${pub.task}`)).json.id).toBe(pub.task);
    answers.DeleteTask = () => ({});
    const deleted = await call("DELETE", `/v2/tasks/${pub.task}`);
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    expect(calls).toEqual([
      { rpc: "GetTask", request: { id: TASK } },
      { rpc: "DeleteTask", request: { id: TASK } },
    ]);
    calls.length = 0;
    const foreign = await call("GET", `/v2/tasks/${pub.run}`);
    expect([foreign.status, foreign.json.detail]).toEqual([404, "task not found"]);
    expect((await call("DELETE", `/v2/tasks/${pub.run}`)).status).toBe(404);
    expect(calls).toEqual([]);
  });

  it("updates the fields the body names; null clears a filter", async () => {
    answers.UpdateTask = () => task({ name: "renamed", queryFilter: undefined });
    const res = await call("PATCH", `/v2/tasks/${pub.task}`, {
      name: "renamed",
      sampling_rate: 0,
      query_filter: null,
      evaluators: [traceEvaluator],
    });
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "UpdateTask",
        request: {
          id: TASK,
          fields: ["name", "sampling_rate", "query_filter", "evaluators"],
          name: "renamed",
          samplingRate: 0,
          evaluators: [
            {
              evaluatorId: EVALUATOR,
              evaluatorName: "",
              evaluatorVersionId: "",
              queryMappingsJson: JSON.stringify(QUERY_MAPPINGS),
            },
          ],
        } satisfies UpdateTaskRequest,
      },
    ]);
    expect(res.json).toMatchObject({ name: "renamed", query_filter: null });

    calls.length = 0;
    await call("PATCH", `/v2/tasks/${pub.task}`, { query_filters: QUERY_FILTERS });
    expect(calls[0]!.request).toEqual({
      id: TASK,
      fields: ["query_filters"],
      name: "",
      queryFiltersJson: JSON.stringify(QUERY_FILTERS),
      evaluators: [],
    } satisfies UpdateTaskRequest);
  });

  it("sends a new run configuration whole, its ids as the service's", async () => {
    answers.UpdateTask = () => runExperimentTask();
    const res = await call("PATCH", `/v2/tasks/${pub.task}`, {
      name: "n",
      run_configuration: publicLlmConfig,
    });
    expect(res.status).toBe(200);
    const sent = calls[0]!.request as UpdateTaskRequest;
    expect(sent.fields).toEqual(["name", "run_configuration"]);
    expect(JSON.parse(sent.runConfigurationJson!)).toEqual(LLM_CONFIG);
  });
});

describe("task runs", () => {
  it("triggers an evaluation run with the body's fields, or none with every default", async () => {
    answers.TriggerRun = () => run();
    const res = await call("POST", `/v2/tasks/${pub.task}/trigger`, {
      data_start_time: AT,
      data_end_time: LATER,
      max_spans: 500,
      override_evaluations: true,
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: pub.run,
      task_id: pub.task,
      experiment_id: null,
      status: "PENDING",
      data_start_time: AT,
      data_end_time: LATER,
      num_successes: 0,
      num_errors: 0,
      num_skipped: 0,
      created_at: LATER,
      created_by_user_id: pub.user,
      failure_reason: null,
    });
    const bare = await call("POST", `/v2/tasks/${pub.task}/trigger`);
    expect(bare.status).toBe(201);
    const defaults = {
      taskId: TASK,
      fields: [],
      dataStartTime: "",
      dataEndTime: "",
      maxSpans: 0,
      overrideEvaluations: false,
      experimentIds: [],
      experimentName: "",
      datasetVersionId: "",
      exampleIds: [],
      maxExamples: 0,
      tracingMetadata: {},
      evaluationTaskIds: [],
    } satisfies TriggerRunRequest;
    expect(calls.map((c) => c.request)).toEqual([
      {
        ...defaults,
        fields: ["data_start_time", "data_end_time", "max_spans", "override_evaluations"],
        dataStartTime: AT,
        dataEndTime: LATER,
        maxSpans: 500,
        overrideEvaluations: true,
      },
      defaults,
    ] satisfies TriggerRunRequest[]);
  });

  it("triggers a run-experiment run with its ids decoded", async () => {
    answers.TriggerRun = () =>
      run({
        experimentId: EXPERIMENT,
        status: "RUNNING",
        runStartedAt: LATER,
        dataStartTime: "",
        dataEndTime: "",
        createdByUserId: "",
      });
    const res = await call("POST", `/v2/tasks/${pub.task}/trigger`, {
      experiment_name: "GPT-4o baseline",
      dataset_version_id: pub.datasetVersion,
      example_ids: [pub.example, pub.dataset],
      query_filter: "label = 'x'",
      tracing_metadata: { team: "ml" },
      evaluation_task_ids: [pub.otherTask],
    });
    expect(res.status).toBe(201);
    expect(calls[0]!.request).toEqual({
      taskId: TASK,
      fields: [
        "experiment_name",
        "dataset_version_id",
        "example_ids",
        "query_filter",
        "tracing_metadata",
        "evaluation_task_ids",
      ],
      dataStartTime: "",
      dataEndTime: "",
      maxSpans: 0,
      overrideEvaluations: false,
      experimentIds: [],
      experimentName: "GPT-4o baseline",
      datasetVersionId: DATASET_VERSION,
      exampleIds: [EXAMPLE, ""],
      maxExamples: 0,
      queryFilter: "label = 'x'",
      tracingMetadata: { team: "ml" },
      evaluationTaskIds: [OTHER_TASK],
    } satisfies TriggerRunRequest);
    expect(res.json).toMatchObject({
      experiment_id: pub.experiment,
      status: "RUNNING",
      run_started_at: LATER,
      data_start_time: null,
      data_end_time: null,
    });
    expect(res.json).not.toHaveProperty("run_finished_at");
    expect(res.json).not.toHaveProperty("created_by_user_id");

    calls.length = 0;
    await call("POST", `/v2/tasks/${pub.task}/trigger`, {
      experiment_name: "e",
      dataset_version_id: pub.dataset,
      max_examples: 5,
    });
    // A dataset version that does not decode must not read as "the latest".
    expect(calls[0]!.request).toMatchObject({ datasetVersionId: NO_SUCH_ID, maxExamples: 5 });
  });

  it("passes the service's 400 for a field of the other task type on", async () => {
    answers.TriggerRun = () => {
      throw toGrpcError(
        new DomainError(
          "invalid-request",
          "experiment_name is not valid when triggering a TEMPLATE_EVALUATION task",
        ),
      );
    };
    const res = await call("POST", `/v2/tasks/${pub.task}/trigger`, { experiment_name: "e" });
    expect([res.status, res.contentType, res.json.type]).toEqual([
      400,
      "application/problem+json; charset=utf-8",
      "https://argus.dev/errors#invalid-request",
    ]);
    expect((calls[0]!.request as TriggerRunRequest).fields).toEqual(["experiment_name"]);
  });

  it("lists a task's runs by status", async () => {
    answers.ListRuns = () => ({
      taskRuns: [
        run({
          status: "CANCELLED",
          runStartedAt: AT,
          runFinishedAt: LATER,
          numSkipped: 3,
          failureReason: "already evaluated: trigger again with override_evaluations",
        }),
      ],
      page: { nextAfter: "" },
    });
    const res = await call("GET", `/v2/tasks/${pub.task}/runs?status=CANCELLED&limit=100`);
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "ListRuns",
        request: {
          page: { limit: 100, after: "" },
          taskId: TASK,
          status: "CANCELLED",
        } satisfies ListRunsRequest,
      },
    ]);
    expect(res.json.task_runs).toEqual([
      expect.objectContaining({
        status: "CANCELLED",
        run_started_at: AT,
        run_finished_at: LATER,
        num_skipped: 3,
        failure_reason: "already evaluated: trigger again with override_evaluations",
      }),
    ]);
    expect(res.json.pagination).toEqual({ has_more: false });

    calls.length = 0;
    answers.ListRuns = () => ({ taskRuns: [] });
    await call("GET", `/v2/tasks/${pub.task}/runs`);
    expect((calls[0]!.request as ListRunsRequest).status).toBe("");
  });

  it("gets and cancels a run by its id; another type's id is a 404", async () => {
    answers.GetRun = () => run({ status: "RUNNING", runStartedAt: AT });
    expect((await call("GET", `/v2/task-runs/${pub.run}`)).json.status).toBe("RUNNING");
    answers.CancelRun = () => run({ status: "CANCELLED", runStartedAt: AT, runFinishedAt: LATER });
    const cancelled = await call("POST", `/v2/task-runs/${pub.run}/cancel`);
    expect([cancelled.status, cancelled.json.status]).toEqual([200, "CANCELLED"]);
    expect(calls).toEqual([
      { rpc: "GetRun", request: { id: RUN } },
      { rpc: "CancelRun", request: { id: RUN } },
    ]);
    calls.length = 0;
    const foreign = await call("GET", `/v2/task-runs/${pub.task}`);
    expect([foreign.status, foreign.json.detail]).toEqual([404, "task run not found"]);
    expect((await call("POST", `/v2/task-runs/${pub.task}/cancel`)).status).toBe(404);
    expect(calls).toEqual([]);
  });

  it("passes the service's 409 for a run that is no longer PENDING or RUNNING on as a Problem", async () => {
    answers.CancelRun = () => {
      throw toGrpcError(
        new DomainError("resource-conflict", "only a PENDING or RUNNING run can be cancelled"),
      );
    };
    const res = await call("POST", `/v2/task-runs/${pub.run}/cancel`);
    expect(res.status).toBe(409);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({
      status: 409,
      title: "Resource conflict",
      type: "https://argus.dev/errors#resource-conflict",
      detail: "only a PENDING or RUNNING run can be cancelled",
    });
  });

  it("answers a run in a state the document does not know as a 500", async () => {
    answers.GetRun = () => run({ status: "QUEUED" });
    expect((await call("GET", `/v2/task-runs/${pub.run}`)).status).toBe(500);
  });
});
