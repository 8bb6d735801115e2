import { tracedQuery } from "@argus/eventstore";
import { DomainError, type CallContext } from "@argus/platform";
import { streamId } from "@argus/contracts";
import type {
  PresentRecordsRequest,
  PresentRecordsResponse,
  RecordSpanEvaluationsRequest,
  RecordSpanEvaluationsResponse,
  SpansToEvaluateRequest,
  SpansToEvaluateResponse,
  UnitsToEvaluateRequest,
  UnitsToEvaluateResponse,
} from "@argus/proto/tracing/v1/tracing";
import { positionAfter, positionOf, spanToEvaluate, unitsOf } from "./units.ts";
import { predicate } from "./spans.ts";
import { isUuid } from "@argus/spaces";
import { invalid, windowOf } from "../domain/rules.ts";
import type { TracingDeps } from "../service.ts";

const MAX_IDS = 5000;
const DAY = 86_400_000;

/**
 * SpanDirectory: served to the catalog (records of annotation queues: it has authorized its
 * caller on the queue and checked that the project is in the queue's space) and to the task
 * runner (evaluations, on its own behalf in the run's account), each its own RPCs (service.ts).
 */
export function spanDirectoryQueries(deps: TracingDeps) {
  return {
    async presentRecords(
      req: PresentRecordsRequest,
      _ctx: CallContext,
    ): Promise<PresentRecordsResponse> {
      if (!isUuid(req.accountId)) throw invalid("account_id must be an id");
      if (req.granularity !== "SPAN" && req.granularity !== "TRACE")
        throw invalid("granularity must be SPAN or TRACE");
      if (req.ids.length > MAX_IDS)
        throw new DomainError("invalid-request", `at most ${MAX_IDS} ids`);
      const res = await tracedQuery(
        deps.pool,
        "project of records",
        "select id from projects where id = $1 and account_id = $2",
        [isUuid(req.projectId) ? req.projectId : null, req.accountId],
      );
      if (res.rows.length === 0 || req.ids.length === 0) return { ids: [] };
      // Every kept day by default, and the day after (clocks ahead of ours).
      const window = windowOf(
        req.startTime,
        req.endTime || new Date(Date.now() + DAY).toISOString(),
        (deps.retentionDays + 1) * DAY,
      );
      const present = await deps.store.present(
        deps.pool,
        req.projectId,
        req.granularity === "SPAN" ? "span" : "trace",
        [...new Set(req.ids)],
        window,
      );
      return { ids: req.ids.filter((id) => present.has(id)) };
    },

    /** The task runner's page of spans to evaluate (on its own behalf, in the run's account). */
    async spansToEvaluate(req: SpansToEvaluateRequest): Promise<SpansToEvaluateResponse> {
      const project = await projectOf(req.accountId, req.projectId);
      if (!project) throw new DomainError("resource-not-found", "project not found");
      const filter = predicate(req.filter);
      const limit = Math.min(Math.max(req.limit || 100, 1), 1000);
      const after = positionOf(req.after);
      const rows = await deps.store.listSpans({
        projectId: project.id,
        window: { start: req.startTime, end: req.endTime, endExclusive: true },
        limit: limit + 1,
        ...(filter ? { filter } : {}),
        ...(after ? { after } : {}),
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        spans: page.map((r) => spanToEvaluate(r)),
        nextAfter: positionAfter(last, rows.length > limit),
      };
    },

    /** The task runner's page of traces or sessions to evaluate (queries/units.ts). */
    async unitsToEvaluate(req: UnitsToEvaluateRequest): Promise<UnitsToEvaluateResponse> {
      const project = await projectOf(req.accountId, req.projectId);
      if (!project) throw new DomainError("resource-not-found", "project not found");
      return unitsOf(deps.store, project.id, req);
    },

    /** Upserts a task run's evaluations on spans of the project (one event a call). */
    async recordSpanEvaluations(
      req: RecordSpanEvaluationsRequest,
      ctx: CallContext,
    ): Promise<RecordSpanEvaluationsResponse> {
      if (req.evaluations.length === 0) return {};
      const project = await projectOf(req.accountId, req.projectId);
      if (!project) throw new DomainError("resource-not-found", "project not found");
      await deps.commands.transact((scope) =>
        scope.appendToSet(
          streamId("project_spans", project.id),
          [
            {
              type: "SpansEvaluated",
              data: {
                project_id: project.id,
                space_id: project.space_id,
                task_id: req.taskId,
                evaluations: req.evaluations.map((e) => ({
                  span_id: e.spanId,
                  name: e.name,
                  label: e.label ?? null,
                  score: e.score ?? null,
                  explanation: e.explanation ?? null,
                })),
                at: new Date().toISOString(),
              },
            },
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

  async function projectOf(accountId: string, projectId: string) {
    if (!isUuid(accountId) || !isUuid(projectId)) return undefined;
    const res = await tracedQuery<{ id: string; space_id: string }>(
      deps.pool,
      "project of the account",
      "select id, space_id from projects where id = $1 and account_id = $2",
      [projectId, accountId],
    );
    return res.rows[0];
  }
}
