import { encodeId } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { auditLogHandlers } from "../src/routes/auditLogs.ts";
import { routesOnRecording } from "./recordingBackend.ts";

// An entry's resource id is the id the API answers for that resource elsewhere, whatever
// stream the event was appended to.

const { answers, call } = routesOnRecording((fake) => auditLogHandlers(fake));
const UUID = "0192f4a0-0000-7000-8000-0000000000aa";

/** The resource id each entry answers, one entry per (stream aggregate, event data). */
async function resourceIds(entries: [string, unknown?][]): Promise<string[]> {
  answers.ListAuditLogs = () => ({
    logs: entries.map(([resourceType, data], i) => ({
      id: `0192f4a0-0000-7000-8000-${String(i).padStart(12, "0")}`,
      userId: "",
      serviceAccountId: "",
      apiKeyId: "",
      clientIp: "",
      requestId: "",
      operationName: "Something",
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
  return (res.json as { logs: { resource_id: string }[] }).logs.map((l) => l.resource_id);
}

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
