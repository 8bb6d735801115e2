import type { CallContext } from "@argus/platform";
import type { DeleteSpansRequest, DeleteSpansResponse } from "@argus/proto/tracing/v1/tracing";
import { WINDOW_DEFAULTS, invalid, windowOf } from "../shared/tracingRules.ts";
import type { TracingDeps } from "../deps.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { appendToSpans, lockSpans } from "./spanSet.ts";

const MAX_DELETED_SPANS = 5000;

/**
 * `DELETE /v2/spans`: the named spans of the project that start in the window (end
 * exclusive) go, with their annotations and evaluations; ids that match nothing are listed as
 * not deleted. Idempotent: a repeat deletes nothing and reports every id as not deleted.
 */
export function deleteCommand(deps: TracingDeps) {
  return async function deleteSpans(
    req: DeleteSpansRequest,
    ctx: CallContext,
  ): Promise<DeleteSpansResponse> {
    if (req.spanIds.length < 1 || req.spanIds.length > MAX_DELETED_SPANS)
      throw invalid(`span_ids must hold 1 to ${MAX_DELETED_SPANS} ids`);
    const now = deps.clock.now();
    const w = windowOf(req.startTime, req.endTime, WINDOW_DEFAULTS.delete, now.getTime(), true);
    const window = { ...w, endExclusive: true };
    const project = await loadProject(deps, ctx, req.projectId, "PROJECT_SPAN_DELETE");
    const ids = [...new Set(req.spanIds)];
    const deleted = await deps.commands.transact(async (scope) => {
      await lockSpans(scope, project.id);
      const gone = await deps.store.delete(scope.client, project.id, ids, window);
      if (gone.length > 0)
        await appendToSpans(scope, ctx, project, [
          {
            type: "SpansDeleted",
            data: {
              project_id: project.id,
              space_id: project.spaceId,
              span_ids: gone,
              deleted_at: now.toISOString(),
            },
          },
        ]);
      return new Set(gone);
    });
    return {
      completed: true,
      deletedSpanIds: ids.filter((id) => deleted.has(id)),
      notDeletedSpanIds: ids.filter((id) => !deleted.has(id)),
    };
  };
}
