import { beforeAll, expect, it } from "vitest";
import { describeContainers, eventually } from "./container-support.ts";
import { sendSpans, recentWindow } from "./spans-support.ts";
import { apiClient, type Json } from "./support.ts";
import { taskExperiment, untilRun } from "./tasks-support.ts";

// The public API through the containerized gateway, a handful of operations that cross every
// service: each hop a container on the stack's network (gRPC by name), the events through the
// 3-node JetStream cluster.

describeContainers("the public API through the containerized gateway", (ref) => {
  const unique = (what: string) => `${what}-${Date.now().toString(36)}`;
  let api: ReturnType<typeof apiClient>;
  let orgId: string;
  let spaceId: string;

  beforeAll(async () => {
    api = apiClient(ref.stack.baseUrl, ref.stack.apiKey);
    orgId = (await api.ok("GET", "/v2/organizations")).organizations[0].id;
    spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id;
  });

  it("serves its probes and its contract", async () => {
    expect((await api.req("GET", "/healthz", { key: null })).status).toBe(200);
    expect((await api.req("GET", "/readyz", { key: null })).status).toBe(200);
    const spec = await fetch(`${ref.stack.baseUrl}/v2/spec.yaml`);
    expect(spec.status).toBe(200);
    expect(await spec.text()).toMatch(/^openapi: 3\.1/m);
  });

  it("creates a space and a project in it, which the audit log records (identity, catalog, NATS)", async () => {
    const space = await api.ok("POST", "/v2/spaces", {
      organization_id: orgId,
      name: unique("containers"),
    });
    const project = await api.ok("POST", "/v2/projects", {
      name: unique("project"),
      space_id: space.id,
    });
    expect((await api.ok("GET", `/v2/projects/${project.id}`)).space_id).toBe(space.id);
    await eventually("the project's creation in the audit log", async () => {
      const logs = (await api.ok("GET", "/v2/audit-logs?operation_name=ProjectCreated&limit=100"))
        .logs as Json[];
      return logs.some((l) => l.resource_id === project.id);
    });
  });

  it("a key made and revoked through the API works, then is refused (principal cache invalidated over NATS)", async () => {
    const made = await api.ok("POST", "/v2/api-keys", {
      key_type: "SERVICE",
      name: unique("svc"),
      organizations: [{ org_id: orgId, spaces: [{ space_id: spaceId, role: { name: "MEMBER" } }] }],
    });
    expect((await api.req("GET", "/v2/spaces", { key: made.key })).status).toBe(200);
    expect((await api.req("PUT", `/v2/api-keys/${made.id}/revoke`)).status).toBe(204);
    expect((await api.req("GET", "/v2/spaces", { key: made.key })).status).toBe(401);
  });

  it("a dataset with examples, read back page by page (dataset)", async () => {
    const dataset = await api.ok("POST", "/v2/datasets", {
      space_id: spaceId,
      name: unique("ds"),
      examples: Array.from({ length: 30 }, (_, i) => ({ input: `q${i}`, expected: `a${i}` })),
    });
    const first = await api.ok("GET", `/v2/datasets/${dataset.id}/examples?limit=20`);
    const second = await api.ok(
      "GET",
      `/v2/datasets/${dataset.id}/examples?limit=20&cursor=${first.pagination.next_cursor}`,
    );
    expect([...first.examples, ...second.examples].map((e: Json) => e.input).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `q${i}`).sort(),
    );
  });

  it("spans sent over OTLP/HTTP are listed (gateway OTLP, tracing)", async () => {
    const sent = await sendSpans(ref.stack, {
      spaceId,
      projectName: unique("otlp"),
      traces: 2,
      spansPerTrace: 3,
    });
    const spans = await eventually("the spans listed", async () => {
      const res = await api.ok("POST", "/v2/spans", {
        project_id: sent.projectId,
        ...recentWindow(),
      });
      return res.spans.length === 6 ? (res.spans as Json[]) : undefined;
    });
    expect(spans.map((s) => s.context.span_id).sort()).toEqual([...sent.spanIds].sort());
  });

  it("a CUSTOM code evaluator runs its Python in the task runner's read-only container", async () => {
    const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);
    const e = await taskExperiment(asAdmin, spaceId, unique, 6);
    const evaluator = await api.ok("POST", "/v2/evaluators", {
      space_id: spaceId,
      name: unique("custom"),
      type: "CODE",
      version: {
        commit_message: "c",
        code_config: {
          type: "CUSTOM",
          name: "judge",
          code: [
            "import json, re",
            "from arize.experiments.evaluators.base import CodeEvaluator, EvaluationResult",
            "",
            "class Judge(CodeEvaluator):",
            "    def evaluate(self, *, output, expected, **kwargs):",
            "        ok = re.sub(r'\\s+', '', output) == json.loads(json.dumps(expected))",
            "        return EvaluationResult(label='match' if ok else 'miss', score=float(ok))",
          ].join("\n"),
          variables: ["output", "expected"],
        },
      },
    });
    const task = await api.ok("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("task"),
      dataset_id: e.datasetId,
      experiment_ids: [e.experimentId],
      evaluators: [{ evaluator_id: evaluator.id }],
    });
    const run = await api.ok("POST", `/v2/tasks/${task.id}/trigger`, {});
    expect(await untilRun(asAdmin, run.id)).toMatchObject({
      status: "COMPLETED",
      num_successes: 6,
      num_errors: 0,
    });
    const runs = (await api.ok("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
      .experiment_runs as Json[];
    expect(runs.map((r) => r["eval.judge.label"]).sort()).toEqual([
      ...Array(3).fill("match"),
      ...Array(3).fill("miss"),
    ]);
  });
});
