import type { SpansEvaluated } from "@argus/contracts";
import type { SpanEvaluation } from "@argus/proto/tracing/v1/tracing";

type Evaluation = SpansEvaluated["data"]["evaluations"][number];

/** A span's evaluation as SpansEvaluated holds it: what the caller left out is null. */
export const evaluationOf = (e: SpanEvaluation): Evaluation => ({
  span_id: e.spanId,
  name: e.name,
  label: e.label ?? null,
  score: e.score ?? null,
  explanation: e.explanation ?? null,
});

/** Evaluations of a project's spans, by a task's run (`taskId`), or by the caller with "". */
export const spansEvaluated = (
  project: { id: string; spaceId: string },
  taskId: string,
  evaluations: Evaluation[],
  at: string,
): SpansEvaluated => ({
  type: "SpansEvaluated",
  data: { project_id: project.id, space_id: project.spaceId, task_id: taskId, evaluations, at },
});
