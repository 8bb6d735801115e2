import { LIMITS, type AnnotationWrite } from "@argus/contracts";
import { EVENT_PAYLOAD_BYTES, chunkBySize } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type {
  PatchSpanMetadataRequest,
  PatchSpanMetadataResponse,
  SpanAnnotationValue,
  SpanEvaluation,
  WriteSpanAnnotationsRequest,
  WriteSpanEvaluationsRequest,
  WriteSpanUpdatesResponse,
} from "@argus/proto/tracing/v1/tracing";
import { annotationChunks, decideAnnotations, namesOf, type AnnotationInput } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { loadProjectByName } from "../projects/projectAccess.ts";
import { invalid, windowOf } from "../shared/tracingRules.ts";
import type { SpanMetadataRow } from "../storage/spanStore.ts";
import { appendToSpans, lockSpans } from "./spanSet.ts";
import { evaluationOf, spansEvaluated } from "./spansEvaluated.ts";

const DAY = 86_400_000;

/** The distinct ids of `ids` in the order first named, split by whether `present` has them. */
export function matchIds(
  ids: Iterable<string>,
  present: ReadonlySet<string>,
): { matched: string[]; unmatched: string[] } {
  const matched: string[] = [];
  const unmatched: string[] = [];
  for (const id of new Set(ids)) (present.has(id) ? matched : unmatched).push(id);
  return { matched, unmatched };
}

/** Each update names a span and a name; an evaluation carries at least one of its values. */
function checkEvaluation(e: SpanEvaluation, i: number): void {
  if (e.spanId === "") throw invalid(`evaluations[${i}].span_id is required`);
  if (e.name.trim() === "") throw invalid(`evaluations[${i}].name is required`);
  if (e.label === undefined && e.score === undefined && e.explanation === undefined)
    throw invalid(`evaluations[${i}] has no label, score or explanation`);
  if (e.score !== undefined && !Number.isFinite(e.score))
    throw invalid(`evaluations[${i}].score must be a finite number`);
}

function checkAnnotation(a: SpanAnnotationValue, i: number): void {
  if (a.spanId === "") throw invalid(`annotations[${i}].span_id is required`);
  if (a.label === undefined && a.score === undefined && a.text === undefined)
    throw invalid(`annotations[${i}] has no label, score or text`);
  if (a.score !== undefined && !Number.isFinite(a.score))
    throw invalid(`annotations[${i}].score must be a finite number`);
}

/**
 * The annotate rules (decideAnnotations) over any number of values: one record per value, in
 * slices of the public API's record limit; values of one span and name merge in order, as
 * within one annotate request.
 */
export function decideSpanAnnotations(
  values: readonly SpanAnnotationValue[],
  configs: Parameters<typeof decideAnnotations>[1],
  present: ReadonlySet<string>,
): AnnotationWrite[] {
  const records: AnnotationInput[] = values.map((v) => ({
    recordId: v.spanId,
    values: [{ name: v.name, label: v.label, score: v.score, text: v.text }],
  }));
  const merged = new Map<string, AnnotationWrite>();
  for (let from = 0; from < records.length; from += LIMITS.ANNOTATED_RECORDS_MAX)
    for (const a of decideAnnotations(
      records.slice(from, from + LIMITS.ANNOTATED_RECORDS_MAX),
      configs,
      present,
      { unmatched: "ignore" },
    )) {
      const key = `${a.record_id}\u0000${a.name}`;
      merged.set(key, { ...merged.get(key), ...a });
    }
  return [...merged.values()];
}

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A patch's objects merge key by key into the value's; anything else, null too, replaces it. */
function merged(target: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch))
    out[key] = isObject(value) && isObject(out[key]) ? merged(out[key], value) : value;
  return out;
}

/**
 * A span's `metadata` attribute after the patches, or why it cannot take them. Ingestion keeps
 * it as OTLP sent it, JSON text by OpenInference's convention: text stays text (none becomes
 * text too), an object stays an object. A null in a patch sets JSON null rather than removing
 * the key, as the SDK documents for update_metadata.
 */
export function patchedMetadata(
  current: unknown,
  patches: readonly JsonObject[],
): { ok: true; value: unknown } | { ok: false; error: string } {
  let base: unknown = current;
  if (typeof current === "string") {
    try {
      base = JSON.parse(current);
    } catch {
      return { ok: false, error: "parse_failure: the span's metadata is not JSON" };
    }
  }
  if (base === undefined || base === null) base = {};
  if (!isObject(base))
    return { ok: false, error: "type_conflict: the span's metadata is not a JSON object" };
  const value = patches.reduce(merged, base);
  return { ok: true, value: isObject(current) ? value : JSON.stringify(value) };
}

function patchOf(text: string, i: number): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`patches[${i}].patch_json is not JSON`);
  }
  if (!isObject(value)) throw invalid(`patches[${i}].patch_json must be a JSON object`);
  return value;
}

/**
 * The official SDK's span updates (spans.update_evaluations, update_annotations over Arrow
 * Flight): by the project's name, its spans looked up over every kept day; span ids of no span
 * are answered as unmatched, everything else is written in one transaction or not at all.
 */
export function spanWriteCommands(deps: TracingDeps) {
  /** Every kept day, and the day after (clocks ahead of ours), as presentRecords looks. */
  const keptDays = () => {
    const now = deps.clock.now().getTime();
    return windowOf("", new Date(now + DAY).toISOString(), (deps.retentionDays + 1) * DAY, now);
  };

  type Scope = Parameters<Parameters<typeof deps.commands.transact>[0]>[0];
  /**
   * Under the project's lock (writes to one project's spans take turns): which of `spanIds`
   * are kept spans of it, the distinct ids split by that in the order first named.
   */
  const presentUnderLock = async (scope: Scope, projectId: string, spanIds: string[]) => {
    await lockSpans(scope, projectId);
    const ids = [...new Set(spanIds)];
    const present = await deps.store.present(scope.client, projectId, "span", ids, keptDays());
    return { present, ...matchIds(ids, present) };
  };

  return {
    async patchSpanMetadata(
      req: PatchSpanMetadataRequest,
      ctx: CallContext,
    ): Promise<PatchSpanMetadataResponse> {
      const patches = new Map<string, JsonObject[]>();
      req.patches.forEach((p, i) => {
        if (p.spanId === "") throw invalid(`patches[${i}].span_id is required`);
        const list = patches.get(p.spanId) ?? [];
        list.push(patchOf(p.patchJson, i));
        patches.set(p.spanId, list);
      });
      const project = await loadProjectByName(
        deps,
        ctx,
        req.spaceId,
        req.projectName,
        "PROJECT_SPAN_UPDATE",
      );
      const at = deps.clock.now().toISOString();
      return deps.commands.transact(async (scope) => {
        await lockSpans(scope, project.id);
        const ids = [...patches.keys()];
        const rows = await deps.store.metadataOf(scope.client, project.id, ids, keptDays());
        const errors = new Map<string, string>();
        const written: SpanMetadataRow[] = [];
        for (const row of rows) {
          const result = patchedMetadata(row.metadata, patches.get(row.spanId)!);
          if (result.ok) written.push({ ...row, metadata: result.value });
          else errors.set(row.spanId, result.error);
        }
        // A span id of rows in several traces is written whole or not at all.
        const updated = written.filter((r) => !errors.has(r.spanId));
        const { matched, unmatched } = matchIds(ids, new Set(rows.map((r) => r.spanId)));
        for (const id of unmatched) errors.set(id, "segment_not_found: no span of the project");
        await deps.store.setMetadata(scope.client, project.id, updated);
        const spanIds = matched.filter((id) => !errors.has(id));
        const events = chunkBySize(spanIds, (id) => id.length + 3, EVENT_PAYLOAD_BYTES).map(
          (chunk) => ({
            type: "SpansMetadataPatched" as const,
            data: { project_id: project.id, space_id: project.spaceId, span_ids: chunk, at },
          }),
        );
        await appendToSpans(scope, ctx, project, events);
        return {
          spansUpdated: BigInt(spanIds.length),
          errors: ids.flatMap((id) => {
            const error = errors.get(id);
            return error ? [{ spanId: id, errorMessage: error }] : [];
          }),
        };
      });
    },

    async writeSpanEvaluations(
      req: WriteSpanEvaluationsRequest,
      ctx: CallContext,
    ): Promise<WriteSpanUpdatesResponse> {
      req.evaluations.forEach(checkEvaluation);
      const project = await loadProjectByName(
        deps,
        ctx,
        req.spaceId,
        req.projectName,
        "PROJECT_SPAN_EVAL_FEEDBACK_UPDATE",
      );
      const at = deps.clock.now().toISOString();
      return deps.commands.transact(async (scope) => {
        const { present, matched, unmatched } = await presentUnderLock(
          scope,
          project.id,
          req.evaluations.map((e) => e.spanId),
        );
        const evaluations = req.evaluations.filter((e) => present.has(e.spanId)).map(evaluationOf);
        // No task: the caller wrote them.
        const events = chunkBySize(
          evaluations,
          (e) => Buffer.byteLength(JSON.stringify(e)) + 16,
          EVENT_PAYLOAD_BYTES,
        ).map((chunk) => spansEvaluated(project, "", chunk, at));
        await appendToSpans(scope, ctx, project, events);
        return { recordsUpdated: BigInt(matched.length), unmatchedIds: unmatched };
      });
    },

    async writeSpanAnnotations(
      req: WriteSpanAnnotationsRequest,
      ctx: CallContext,
    ): Promise<WriteSpanUpdatesResponse> {
      req.annotations.forEach(checkAnnotation);
      const project = await loadProjectByName(
        deps,
        ctx,
        req.spaceId,
        req.projectName,
        "PROJECT_SPAN_ANNOTATE",
      );
      const names = namesOf(req.annotations.map((a) => ({ recordId: "", values: [a] })));
      const configs = names.length ? await deps.configs.named(ctx, project.spaceId, names) : [];
      const annotator = await deps.annotators.caller(ctx);
      const at = deps.clock.now().toISOString();
      return deps.commands.transact(async (scope) => {
        const { present, matched, unmatched } = await presentUnderLock(
          scope,
          project.id,
          req.annotations.map((a) => a.spanId),
        );
        const annotations = decideSpanAnnotations(req.annotations, configs, present);
        const events = annotationChunks(annotations).map((chunk) => ({
          type: "SpansAnnotated" as const,
          data: {
            project_id: project.id,
            space_id: project.spaceId,
            granularity: "SPAN" as const,
            annotator_id: annotator.user_id,
            annotator_email: annotator.email,
            annotations: chunk,
            at,
          },
        }));
        await appendToSpans(scope, ctx, project, events);
        return { recordsUpdated: BigInt(matched.length), unmatchedIds: unmatched };
      });
    },
  };
}
