import { streamId } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type { AnnotateRequest } from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import type { DatasetDeps } from "../deps.ts";
import { annotateRecords, type RecordKind } from "../shared/annotationCommands.ts";
import { loadExperiment, lockExperiment } from "./experimentRows.ts";

/** Runs are annotated under their experiment's row lock, on its runs' stream. */
const RUNS: RecordKind = {
  kind: "run",
  load: (deps, ctx, id) => loadExperiment(deps, ctx, id, "EXPERIMENT_RUN_ANNOTATE"),
  lock: lockExperiment,
  present: async (client, parentId, ids) =>
    new Set(
      (
        await tracedQuery<{ id: string }>(
          client,
          "annotated runs present",
          "select id from experiment_runs where experiment_id = $1 and id = any($2::uuid[])",
          [parentId, ids.filter(isUuid)],
        )
      ).rows.map((r) => r.id),
    ),
  event: (p, data) => ({
    stream: streamId("experiment_runs", p.id),
    event: {
      type: "ExperimentRunsAnnotated",
      data: { experiment_id: p.id, space_id: p.space_id, ...data },
    },
  }),
};

/** `POST /v2/experiments/{id}/runs/annotate` (shared/annotationCommands.ts has the rules). */
export function runAnnotationCommands(deps: DatasetDeps) {
  return {
    annotateRuns: (req: AnnotateRequest, ctx: CallContext) => annotateRecords(deps, RUNS, req, ctx),
  };
}
