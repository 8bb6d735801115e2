import { tracedQuery } from "@argus/eventstore";
import { fetchSize, newestAfter, newestKeyOf, pageOf, type CallContext } from "@argus/platform";
import type {
  GetRunRequest,
  ListRunsRequest,
  ListRunsResponse,
  TaskRun,
} from "@argus/proto/tasks/v1/tasks";
import { requirePermissionAt } from "@argus/spaces";
import type { TasksDeps } from "../deps.ts";
import { accessOf, kindOf, placeOf } from "../shared/access.ts";
import { invalid } from "../tasks/taskDecider.ts";
import { taskRow } from "../tasks/taskRows.ts";
import { RUN_COLUMNS, runWithPlace, toRun, type RunRow, type TaskPlace } from "./taskRunRows.ts";

const RUN_STATUSES = new Set(["PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED"]);

/** A task's runs, read as the task is: `GET /v2/task-runs/{id}`, `GET /v2/tasks/{id}/runs`. */
export function taskRunQueries(deps: TasksDeps) {
  const { pool, spaces } = deps;

  const readable = async (ctx: CallContext, task: TaskPlace) =>
    requirePermissionAt(spaces, ctx, placeOf(task), accessOf(kindOf(task)));

  return {
    async getRun(req: GetRunRequest, ctx: CallContext): Promise<TaskRun> {
      const { run, task } = await runWithPlace(pool, ctx, req.id);
      await readable(ctx, task);
      return toRun(run);
    },

    async listRuns(req: ListRunsRequest, ctx: CallContext): Promise<ListRunsResponse> {
      if (req.status && !RUN_STATUSES.has(req.status))
        throw invalid("status must be PENDING, RUNNING, COMPLETED, FAILED or CANCELLED");
      const task = await taskRow(pool, ctx, req.taskId);
      await readable(ctx, task);
      const [afterAt, afterId] = newestAfter(req.page?.after);
      const res = await tracedQuery<RunRow>(
        pool,
        "list task runs",
        `select ${RUN_COLUMNS} from task_runs
          where task_id = $1 and ($2::text is null or status = $2)
            and ($3::timestamptz is null or (created_at, id) < ($3, $4::uuid))
          order by created_at desc, id desc
          limit $5`,
        [task.id, req.status || null, afterAt, afterId, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, newestKeyOf);
      return { taskRuns: items.map(toRun), page: { nextAfter } };
    },
  };
}
