import type { PoolClient } from "pg";
import { streamId, type AnnotationWrite, type DatasetServiceEvent } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import { actorId, isUuid } from "@argus/spaces";
import type { AnnotateRequest, AnnotateResponse } from "@argus/proto/dataset/v1/dataset";
import { decideAnnotations, namesOf, type AnnotationInput } from "../domain/annotations.ts";
import { EVENT_EXAMPLE_BYTES, chunkBySize } from "../domain/examples.ts";
import { notFound } from "../domain/lifecycle.ts";
import { findExperiment } from "../projections/experimentRows.ts";
import { findDataset } from "../projections/rows.ts";
import type { DatasetDeps } from "../service.ts";
import { loadDataset, spaceMetadata } from "./datasets.ts";
import { loadExperiment } from "./experiments.ts";

/** Which of `ids` are live records: examples of the dataset (any version) or runs of the experiment. */
async function presentRecords(
  client: PoolClient,
  kind: "example" | "run",
  parentId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const res = await tracedQuery<{ id: string }>(
    client,
    `annotated ${kind}s present`,
    kind === "example"
      ? "select distinct id from examples where dataset_id = $1 and id = any($2::uuid[]) and not deleted"
      : "select id from experiment_runs where experiment_id = $1 and id = any($2::uuid[])",
    [parentId, ids.filter(isUuid)],
  );
  return new Set(res.rows.map((r) => r.id));
}

/** Annotations as events that each fit one NATS message. */
const chunks = (annotations: readonly AnnotationWrite[]) =>
  chunkBySize(annotations, (a) => JSON.stringify(a).length + 16, EVENT_EXAMPLE_BYTES);

const inputs = (req: AnnotateRequest): AnnotationInput[] =>
  req.records.map((r) => ({ recordId: r.recordId, values: r.values }));

/**
 * Annotate examples and runs (202 in the public API): upserts by annotation config name, each
 * name checked against the configs of the record's space as the catalog has them now, under
 * the dataset's (or the experiment's) row lock, as every write of its records.
 */
export function annotationCommands(deps: DatasetDeps) {
  return {
    async annotateExamples(req: AnnotateRequest, ctx: CallContext): Promise<AnnotateResponse> {
      const checked = await loadDataset(deps, ctx, req.parentId, "DATASET_EXAMPLE_ANNOTATE");
      const records = inputs(req);
      const configs = await deps.configs.named(ctx, checked.space_id, namesOf(records));
      await deps.commands.transact(async (scope) => {
        const row = await findDataset(scope.client, checked.id, true);
        if (!row) throw notFound("dataset");
        const ids = records.map((r) => r.recordId);
        const present = await presentRecords(scope.client, "example", row.id, ids);
        const annotations = decideAnnotations(records, configs, present);
        const at = new Date().toISOString();
        const events = chunks(annotations).map((chunk): DatasetServiceEvent => ({
          type: "DatasetExamplesAnnotated",
          data: {
            dataset_id: row.id,
            space_id: row.space_id,
            annotator_id: actorId(ctx),
            annotations: chunk,
            at,
          },
        }));
        await scope.appendLocked(
          streamId("dataset_examples", row.id),
          events,
          spaceMetadata(ctx, row.space_id),
        );
      });
      return {};
    },

    async annotateRuns(req: AnnotateRequest, ctx: CallContext): Promise<AnnotateResponse> {
      const checked = await loadExperiment(deps, ctx, req.parentId, "EXPERIMENT_RUN_ANNOTATE");
      const records = inputs(req);
      const configs = await deps.configs.named(ctx, checked.space_id, namesOf(records));
      await deps.commands.transact(async (scope) => {
        const row = await findExperiment(scope.client, checked.id, true);
        if (!row) throw notFound("experiment");
        const ids = records.map((r) => r.recordId);
        const present = await presentRecords(scope.client, "run", row.id, ids);
        const annotations = decideAnnotations(records, configs, present);
        const at = new Date().toISOString();
        const events = chunks(annotations).map((chunk): DatasetServiceEvent => ({
          type: "ExperimentRunsAnnotated",
          data: {
            experiment_id: row.id,
            space_id: row.space_id,
            annotator_id: actorId(ctx),
            annotations: chunk,
            at,
          },
        }));
        await scope.appendLocked(
          streamId("experiment_runs", row.id),
          events,
          spaceMetadata(ctx, row.space_id),
        );
      });
      return {};
    },
  };
}
