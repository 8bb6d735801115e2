import { tracedQuery } from "@argus/eventstore";
import {
  fetchSize,
  grantedProjectIds,
  hasProjectPermission,
  isAccountAdmin,
  spaceRuleSql,
  hasSpacePermission,
  newestAfter,
  newestKeyOf,
  pageOf,
  type CallContext,
} from "@argus/platform";
import type {
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Task,
} from "@argus/proto/tasks/v1/tasks";
import { isUuid, requirePermissionAt, SPACE_FACTS } from "@argus/spaces";
import type { TasksDeps } from "../deps.ts";
import { accessOf, kindOf, placeOf } from "../shared/access.ts";
import { invalid, isTaskType } from "./taskDecider.ts";
import { TASK_COLUMNS, taskRow, toTask, type TaskRow } from "./taskRows.ts";

export function taskQueries(deps: TasksDeps) {
  const { pool, spaces } = deps;

  const readable = async (ctx: CallContext, task: TaskRow) =>
    requirePermissionAt(spaces, ctx, placeOf(task), accessOf(kindOf(task)));

  return {
    async getTask(req: GetTaskRequest, ctx: CallContext): Promise<Task> {
      const task = await taskRow(pool, ctx, req.id);
      await readable(ctx, task);
      return toTask(task);
    },

    /**
     * Newest first, what the caller may read chosen in SQL (the rule of README "Roles and
     * permissions" over the service's copy of identity's space facts: a project task by
     * PROJECT_EVAL_TASK_READ in its space or a binding on its project, a dataset task by
     * EXPERIMENT_EVAL_TASK_READ), then confirmed on identity's facts as of now, which also
     * judge restricted projects: a page is short only where those take a right away.
     */
    async listTasks(req: ListTasksRequest, ctx: CallContext): Promise<ListTasksResponse> {
      const p = ctx.principal;
      if (req.type && !isTaskType(req.type)) throw invalid("unknown task type");
      const spaceIds = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const [afterAt, afterId] = newestAfter(req.page?.after);
      const onProjects = spaceRuleSql(
        p,
        "PROJECT_EVAL_TASK_READ",
        "sf",
        13,
        SPACE_FACTS("t.space_id"),
      );
      const onDatasets = spaceRuleSql(
        p,
        "EXPERIMENT_EVAL_TASK_READ",
        "sf",
        16,
        SPACE_FACTS("t.space_id"),
      );
      const id = (v: string) =>
        v === "" ? null : isUuid(v) ? v : "00000000-0000-0000-0000-000000000000";
      const res = await tracedQuery<TaskRow>(
        pool,
        "list tasks",
        `select ${TASK_COLUMNS} from tasks t
          where account_id = $1
            and ($2::uuid is null or space_id = $2)
            and ($3::uuid[] is null or space_id = any($3))
            and ($4::text is null or strpos(lower(name), lower($4)) > 0)
            and ($5::uuid is null or project_id = $5)
            and ($6::uuid is null or dataset_id = $6)
            and ($7::text is null or task_type = $7)
            and ($8::timestamptz is null or (created_at, id) < ($8, $9::uuid))
            and ($11 or case when t.project_id is not null
                             then t.project_id = any($12::uuid[]) or ${onProjects.sql}
                             else ${onDatasets.sql} end)
          order by created_at desc, id desc
          limit $10`,
        [
          p.accountId,
          id(req.spaceId),
          spaceIds,
          req.name || null,
          id(req.projectId),
          id(req.datasetId),
          req.type || null,
          afterAt,
          afterId,
          fetchSize(req.page),
          isAccountAdmin(p),
          grantedProjectIds(p, "PROJECT_EVAL_TASK_READ"),
          ...onProjects.params,
          ...onDatasets.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, newestKeyOf);
      const facts = await spaces.factsOfMany(
        ctx,
        [...new Set(items.map((t) => t.space_id))],
        [...new Set(items.flatMap((t) => (t.project_id ? [t.project_id] : [])))],
      );
      const visible = items.filter((t) => {
        const space = facts.spaces.get(t.space_id);
        if (!space) return false;
        const read = accessOf(kindOf(t)).read;
        return t.project_id
          ? hasProjectPermission(
              p,
              space,
              { id: t.project_id, restricted: facts.restricted.has(t.project_id) },
              read,
            )
          : hasSpacePermission(p, space, read);
      });
      return { tasks: visible.map(toTask), page: { nextAfter } };
    },
  };
}
