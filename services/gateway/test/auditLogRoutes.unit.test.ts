import { encodeId } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { auditLogHandlers } from "../src/routes/auditLogs.ts";
import { routesOnRecording } from "./recordingBackend.ts";

// An entry's resource id is the id the API answers for that resource elsewhere, whatever
// stream the event was appended to.

const { answers, call } = routesOnRecording((fake) => auditLogHandlers(fake));
const UUID = "0192f4a0-0000-7000-8000-0000000000aa";

type Entry = { resource_id: string; variables: string };

/** The entries answered, one per (stream aggregate, event data, event type). */
async function entries(given: [string, unknown?, string?][]): Promise<Entry[]> {
  answers.ListAuditLogs = () => ({
    logs: given.map(([resourceType, data, operationName], i) => ({
      id: `0192f4a0-0000-7000-8000-${String(i).padStart(12, "0")}`,
      userId: "",
      serviceAccountId: "",
      apiKeyId: "",
      clientIp: "",
      requestId: "",
      operationName: operationName ?? "Something",
      operationType: "MUTATION",
      resourceType,
      resourceId: UUID,
      variables: data === undefined ? "" : JSON.stringify(data),
      createdAt: "2030-01-01T00:00:00Z",
    })),
    page: { nextAfter: "" },
  });
  const res = await call("GET", "/v2/audit-logs");
  expect(res.status).toBe(200);
  return (res.json as { logs: Entry[] }).logs;
}

const resourceIds = async (given: [string, unknown?][]) =>
  (await entries(given)).map((l) => l.resource_id);

/** One entry's variables, as the API answers them. */
const variablesOf = async (aggregate: string, data: unknown, operationName?: string) =>
  JSON.parse((await entries([[aggregate, data, operationName]]))[0]!.variables) as unknown;

describe("list_audit_logs: an entry's resource id", () => {
  it("is the public id of the resource its stream names, of the right type", async () => {
    const cases: [string, string][] = [
      ["space", "Space"],
      ["api_key", "ApiKey"],
      ["task_run", "TaskRun"],
      ["ai_integration", "AiIntegration"],
      ["annotation_config", "AnnotationConfig"],
      ["annotation_queue", "AnnotationQueue"],
      ["webhook_subscription", "WebhookSubscription"],
      // A set's stream is named by its owner.
      ["dataset_examples", "Dataset"],
      ["experiment_runs", "Experiment"],
      ["project_spans", "Project"],
    ];
    expect(await resourceIds(cases.map(([aggregate]) => [aggregate]))).toEqual(
      cases.map(([, type]) => encodeId(type, UUID)),
    );
  });

  it("a restriction's and a resource's tags: the type their event names", async () => {
    expect(
      await resourceIds([
        ["restriction", { resource_id: UUID, resource_type: "DASHBOARD" }],
        ["restriction", { resource_id: UUID, resource_type: "PROMPT" }],
        // Lifted before the event named the type.
        ["restriction", { resource_id: UUID }],
        ["resource_tags", { resource_type: "annotation_queue", resource_id: UUID }],
        ["resource_tags", { resource_type: "dataset", resource_id: UUID }],
      ]),
    ).toEqual([
      encodeId("Dashboard", UUID),
      encodeId("Prompt", UUID),
      encodeId("Project", UUID),
      encodeId("AnnotationQueue", UUID),
      encodeId("Dataset", UUID),
    ]);
  });

  it("an aggregate it does not know: the id type is named after it", async () => {
    expect(await resourceIds([["new_thing"]])).toEqual([encodeId("New_thing", UUID)]);
  });
});

describe("list_audit_logs: an entry's variables", () => {
  const u = (n: number) => `0192f4a0-0000-7000-8000-${String(n).padStart(12, "0")}`;

  it("name the resources they hold by their public ids, of the type where they sit", async () => {
    expect(
      await variablesOf(
        "dataset_examples",
        {
          dataset_id: UUID,
          space_id: u(1),
          version_id: u(2),
          // The user's fields are content: a uuid there is the user's text.
          examples: [{ id: u(3), fields: { dataset_id: u(4), id: u(5) } }],
          at: "2030-01-01T00:00:00Z",
        },
        "DatasetExamplesUpdated",
      ),
    ).toEqual({
      dataset_id: encodeId("Dataset", UUID),
      space_id: encodeId("Space", u(1)),
      version_id: encodeId("DatasetVersion", u(2)),
      examples: [{ id: encodeId("DatasetExample", u(3)), fields: { dataset_id: u(4), id: u(5) } }],
      at: "2030-01-01T00:00:00Z",
    });
    // A version is the stream's kind of version.
    expect(
      await variablesOf("prompt", {
        prompt_id: UUID,
        version_id: u(1),
        previous_version_id: u(2),
        label: "production",
      }),
    ).toEqual({
      prompt_id: encodeId("Prompt", UUID),
      version_id: encodeId("PromptVersion", u(1)),
      previous_version_id: encodeId("PromptVersion", u(2)),
      label: "production",
    });
    expect(
      await variablesOf("evaluator", { evaluator_id: UUID, version_ids: [u(1), u(2)] }),
    ).toEqual({
      evaluator_id: encodeId("Evaluator", UUID),
      version_ids: [encodeId("EvaluatorVersion", u(1)), encodeId("EvaluatorVersion", u(2))],
    });
  });

  it("an id is the stream's resource, or what the event created in it", async () => {
    expect(
      await variablesOf(
        "dataset",
        { id: u(1), dataset_id: UUID, parent_version_id: u(2) },
        "DatasetVersionCreated",
      ),
    ).toEqual({
      id: encodeId("DatasetVersion", u(1)),
      dataset_id: encodeId("Dataset", UUID),
      parent_version_id: encodeId("DatasetVersion", u(2)),
    });
    expect(await variablesOf("dataset", { id: UUID, name: "d" }, "DatasetCreated")).toEqual({
      id: encodeId("Dataset", UUID),
      name: "d",
    });
    // An id this gateway cannot place stays as stored rather than be named wrongly.
    expect(await variablesOf("dataset", { id: u(1) }, "SomethingNew")).toEqual({ id: u(1) });
  });

  it("an id typed by its sibling: a binding's subject and resource, a subscription's source", async () => {
    expect(
      await variablesOf("role_binding", {
        id: UUID,
        role_id: u(1),
        subject_type: "SERVICE_ACCOUNT",
        subject_id: u(2),
        resource_type: "SPACE",
        resource_id: u(3),
      }),
    ).toEqual({
      id: encodeId("RoleBinding", UUID),
      role_id: encodeId("Role", u(1)),
      subject_type: "SERVICE_ACCOUNT",
      subject_id: encodeId("ServiceAccount", u(2)),
      resource_type: "SPACE",
      resource_id: encodeId("Space", u(3)),
    });
    expect(
      await variablesOf("webhook_subscription", {
        id: UUID,
        webhook_id: u(1),
        source_type: "ONLINE_TASK",
        source_id: u(2),
      }),
    ).toEqual({
      id: encodeId("WebhookSubscription", UUID),
      webhook_id: encodeId("Webhook", u(1)),
      source_type: "ONLINE_TASK",
      source_id: encodeId("Task", u(2)),
    });
  });

  it("records, runs and their annotations: the event's own objects, never a run's output", async () => {
    expect(
      await variablesOf("annotation_queue", {
        queue_id: UUID,
        records: [
          {
            id: u(1),
            source_type: "DATASET",
            data: { example_id: u(2) },
            assignees: [{ user_id: u(3), email: "a@example.com" }],
          },
        ],
      }),
    ).toEqual({
      queue_id: encodeId("AnnotationQueue", UUID),
      records: [
        {
          id: encodeId("AnnotationQueueRecord", u(1)),
          source_type: "DATASET",
          data: { example_id: encodeId("DatasetExample", u(2)) },
          assignees: [{ user_id: encodeId("User", u(3)), email: "a@example.com" }],
        },
      ],
    });
    expect(
      await variablesOf("experiment_runs", {
        experiment_id: UUID,
        task_id: u(1),
        evaluations: [{ run_id: u(2), name: "n" }],
        annotations: [{ record_id: u(3), name: "m" }],
        runs: [{ id: u(4), example_id: null, output: u(5) }],
      }),
    ).toEqual({
      experiment_id: encodeId("Experiment", UUID),
      task_id: encodeId("Task", u(1)),
      evaluations: [{ run_id: encodeId("ExperimentRun", u(2)), name: "n" }],
      annotations: [{ record_id: encodeId("ExperimentRun", u(3)), name: "m" }],
      runs: [{ id: encodeId("ExperimentRun", u(4)), example_id: null, output: u(5) }],
    });
  });

  it("a run's options: the evaluators at the versions it runs, and the experiment it makes", async () => {
    expect(
      await variablesOf("task_run", {
        id: UUID,
        options: {
          experiment_id: u(1),
          experiment_dataset_id: u(2),
          evaluators: [{ evaluator_id: u(3), version_id: u(4), config: { id: u(5) } }],
        },
      }),
    ).toEqual({
      id: encodeId("TaskRun", UUID),
      options: {
        experiment_id: encodeId("Experiment", u(1)),
        experiment_dataset_id: encodeId("Dataset", u(2)),
        // An evaluator's config is its author's.
        evaluators: [
          {
            evaluator_id: encodeId("Evaluator", u(3)),
            version_id: encodeId("EvaluatorVersion", u(4)),
            config: { id: u(5) },
          },
        ],
      },
    });
  });

  it("what is not a uuid, or not JSON, is answered as stored", async () => {
    expect(await variablesOf("project_spans", { project_id: UUID, task_id: "" })).toEqual({
      project_id: encodeId("Project", UUID),
      task_id: "",
    });
    const [raw] = await entries([["space", undefined]]);
    expect(raw!.variables).toBe("");
  });
});
