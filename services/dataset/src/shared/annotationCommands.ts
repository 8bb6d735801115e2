import type { PoolClient } from "pg";
import { streamId, type AnnotationWrite, type DatasetServiceEvent } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import { isUuid } from "@argus/spaces";
import type { AnnotateRequest, AnnotateResponse } from "@argus/proto/dataset/v1/dataset";
import { annotationChunks, decideAnnotations, namesOf, type AnnotationInput } from "@argus/spaces";
import { notFound } from "../domain/lifecycle.ts";
import { findExperiment } from "../projections/experimentRows.ts";
import { findDataset } from "../projections/rows.ts";
import type { DatasetDeps } from "../service.ts";
import { loadDataset } from "./datasets.ts";
import { spaceMetadata } from "@argus/spaces";
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

const inputs = (req: AnnotateRequest): AnnotationInput[] =>
  req.records.map((r) => ({ recordId: r.recordId, values: r.values }));

/** Where a kind of record lives: its parent, the parent's lock and stream, the event. */
interface RecordKind {
  kind: "example" | "run";
  load(deps: DatasetDeps, ctx: CallContext, id: string): Promise<{ id: string; space_id: string }>;
  lock(client: PoolClient, id: string): Promise<{ id: string; space_id: string } | undefined>;
  event(
    parent: { id: string; space_id: string },
    data: {
      annotator_id: string;
      annotator_email: string;
      annotations: AnnotationWrite[];
      at: string;
    },
  ): { stream: string; event: DatasetServiceEvent };
}

const EXAMPLES: RecordKind = {
  kind: "example",
  load: (deps, ctx, id) => loadDataset(deps, ctx, id, "DATASET_EXAMPLE_ANNOTATE"),
  lock: (client, id) => findDataset(client, id, true),
  event: (p, data) => ({
    stream: streamId("dataset_examples", p.id),
    event: {
      type: "DatasetExamplesAnnotated",
      data: { dataset_id: p.id, space_id: p.space_id, ...data },
    },
  }),
};

const RUNS: RecordKind = {
  kind: "run",
  load: (deps, ctx, id) => loadExperiment(deps, ctx, id, "EXPERIMENT_RUN_ANNOTATE"),
  lock: (client, id) => findExperiment(client, id, true),
  event: (p, data) => ({
    stream: streamId("experiment_runs", p.id),
    event: {
      type: "ExperimentRunsAnnotated",
      data: { experiment_id: p.id, space_id: p.space_id, ...data },
    },
  }),
};

/**
 * Annotate examples and runs (202 in the public API): upserts by annotation config name, each
 * name checked against the configs of the record's space as the catalog has them now, under
 * the dataset's (or the experiment's) row lock, as every write of their records.
 */
export function annotationCommands(deps: DatasetDeps) {
  async function annotate(
    k: RecordKind,
    req: AnnotateRequest,
    ctx: CallContext,
  ): Promise<AnnotateResponse> {
    const checked = await k.load(deps, ctx, req.parentId);
    const records = inputs(req);
    const configs = await deps.configs.named(ctx, checked.space_id, namesOf(records));
    const annotator = await deps.annotators.caller(ctx);
    await deps.commands.transact(async (scope) => {
      const parent = await k.lock(scope.client, checked.id);
      if (!parent) throw notFound(k.kind === "example" ? "dataset" : "experiment");
      const ids = records.map((r) => r.recordId);
      const present = await presentRecords(scope.client, k.kind, parent.id, ids);
      const annotations = decideAnnotations(records, configs, present);
      const at = new Date().toISOString();
      const written = annotationChunks(annotations).map((chunk) =>
        k.event(parent, {
          annotator_id: annotator.user_id,
          annotator_email: annotator.email,
          annotations: chunk,
          at,
        }),
      );
      if (written.length === 0) return;
      await scope.appendLocked(
        written[0]!.stream,
        written.map((w) => w.event),
        spaceMetadata(ctx, parent.space_id),
      );
    });
    return {};
  }

  return {
    annotateExamples: (req: AnnotateRequest, ctx: CallContext) => annotate(EXAMPLES, req, ctx),
    annotateRuns: (req: AnnotateRequest, ctx: CallContext) => annotate(RUNS, req, ctx),
  };
}
