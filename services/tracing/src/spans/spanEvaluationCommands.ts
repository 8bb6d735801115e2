import { spansStream } from "./spanSet.ts";
import { DomainError, type CallContext } from "@argus/platform";
import type {
  RecordSpanEvaluationsRequest,
  RecordSpanEvaluationsResponse,
} from "@argus/proto/tracing/v1/tracing";
import type { TracingDeps } from "../deps.ts";
import { projectOfAccount } from "../projects/tracingProjects.ts";
import { evaluationOf, spansEvaluated } from "./spansEvaluated.ts";

/** SpanDirectory's one write, served to the task runner alone: a run's evaluations of spans. */
export function spanEvaluationCommands(deps: TracingDeps) {
  return {
    /** Upserts a task run's evaluations on spans of the project (one event a call). */
    async recordSpanEvaluations(
      req: RecordSpanEvaluationsRequest,
      ctx: CallContext,
    ): Promise<RecordSpanEvaluationsResponse> {
      if (req.evaluations.length === 0) return {};
      const project = await projectOfAccount(deps.pool, req.accountId, req.projectId);
      if (!project) throw new DomainError("resource-not-found", "project not found");
      await deps.commands.transact((scope) =>
        scope.appendToSet(
          spansStream(project.id),
          [
            spansEvaluated(
              { id: project.id, spaceId: project.space_id },
              req.taskId,
              req.evaluations.map(evaluationOf),
              deps.clock.now().toISOString(),
            ),
          ],
          {
            account_id: req.accountId,
            space_id: project.space_id,
            actor: `task:${req.taskId}`,
            request_id: ctx.requestId,
          },
        ),
      );
      return {};
    },
  };
}
