import { notFound } from "@argus/platform";
import type { PoolClient } from "pg";
import type { AnnotationWrite, DatasetServiceEvent } from "@argus/contracts";
import type { CommandScope, RowLock } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type { AnnotateRequest, AnnotateResponse } from "@argus/proto/dataset/v1/dataset";
import {
  annotationChunks,
  decideAnnotations,
  namesOf,
  spaceMetadata,
  type AnnotationInput,
} from "@argus/spaces";
import type { DatasetDeps } from "../deps.ts";

const inputs = (req: AnnotateRequest): AnnotationInput[] =>
  req.records.map((r) => ({ recordId: r.recordId, values: r.values }));

/**
 * Where a kind of record lives: its parent, the parent's lock and stream, the event, and which
 * records of the parent are live (examples: examples/exampleAnnotationCommands.ts; runs:
 * experiments/runAnnotationCommands.ts).
 */
export interface RecordKind {
  kind: "example" | "run";
  load(deps: DatasetDeps, ctx: CallContext, id: string): Promise<{ id: string; space_id: string }>;
  lock(
    scope: CommandScope,
    id: string,
  ): Promise<RowLock<{ id: string; space_id: string }> | undefined>;
  /** Which of `ids` are live records of the parent. */
  present(client: PoolClient, parentId: string, ids: readonly string[]): Promise<Set<string>>;
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

/**
 * Annotate examples or runs (202 in the public API): upserts by annotation config name, each
 * name checked against the configs of the record's space as the catalog has them now, under
 * the dataset's (or the experiment's) row lock, as every write of their records.
 */
export async function annotateRecords(
  deps: DatasetDeps,
  k: RecordKind,
  req: AnnotateRequest,
  ctx: CallContext,
): Promise<AnnotateResponse> {
  const checked = await k.load(deps, ctx, req.parentId);
  const records = inputs(req);
  const configs = await deps.configs.named(ctx, checked.space_id, namesOf(records));
  const annotator = await deps.annotators.caller(ctx);
  await deps.commands.transact(async (scope) => {
    const lock = await k.lock(scope, checked.id);
    if (!lock) throw notFound(k.kind === "example" ? "dataset" : "experiment");
    const parent = lock.row;
    const ids = records.map((r) => r.recordId);
    const present = await k.present(scope.client, parent.id, ids);
    // An id that names no record is left out, the rest written (the public API's answer).
    const annotations = decideAnnotations(records, configs, present, { unmatched: "ignore" });
    const at = deps.clock.now().toISOString();
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
      lock,
      written[0]!.stream,
      written.map((w) => w.event),
      spaceMetadata(ctx, parent.space_id),
    );
  });
  return {};
}
