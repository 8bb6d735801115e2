import { streamId } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type { AnnotateRequest } from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import { loadDataset, lockDataset } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { annotateRecords, type RecordKind } from "../shared/annotationCommands.ts";

/** Examples are annotated under their dataset's row lock, on its examples' stream. */
const EXAMPLES: RecordKind = {
  kind: "example",
  load: (deps, ctx, id) => loadDataset(deps, ctx, id, "DATASET_EXAMPLE_ANNOTATE"),
  lock: lockDataset,
  // Live in any version of the dataset.
  present: async (client, parentId, ids) =>
    new Set(
      (
        await tracedQuery<{ id: string }>(
          client,
          "annotated examples present",
          "select distinct id from examples where dataset_id = $1 and id = any($2::uuid[]) and not deleted",
          [parentId, ids.filter(isUuid)],
        )
      ).rows.map((r) => r.id),
    ),
  event: (p, data) => ({
    stream: streamId("dataset_examples", p.id),
    event: {
      type: "DatasetExamplesAnnotated",
      data: { dataset_id: p.id, space_id: p.space_id, ...data },
    },
  }),
};

/** `POST /v2/datasets/{id}/examples/annotate` (shared/annotationCommands.ts has the rules). */
export function exampleAnnotationCommands(deps: DatasetDeps) {
  return {
    annotateExamples: (req: AnnotateRequest, ctx: CallContext) =>
      annotateRecords(deps, EXAMPLES, req, ctx),
  };
}
