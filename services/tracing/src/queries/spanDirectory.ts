import { tracedQuery } from "@argus/eventstore";
import { DomainError, type CallContext } from "@argus/platform";
import type {
  PresentRecordsRequest,
  PresentRecordsResponse,
} from "@argus/proto/tracing/v1/tracing";
import { isUuid } from "@argus/spaces";
import { invalid, windowOf } from "../domain/rules.ts";
import type { TracingDeps } from "../service.ts";

const MAX_IDS = 5000;
const DAY = 86_400_000;

/**
 * SpanDirectory: served to the catalog only (service.ts), as itself: it has authorized its
 * caller on the annotation queue and checked that the project is in the queue's space.
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
  };
}
