import type { CallContext } from "@argus/platform";
import type { AnnotateSpansRequest, AnnotateSpansResponse } from "@argus/proto/tracing/v1/tracing";
import { annotationChunks, decideAnnotations, namesOf, type AnnotationInput } from "@argus/spaces";
import { WINDOW_DEFAULTS, invalid, windowOf } from "../shared/tracingRules.ts";
import type { TracingDeps } from "../deps.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { appendToSpans, lockSpans } from "./spanSet.ts";

function recordsOf(text: string): AnnotationInput[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid("annotations must be a JSON array");
  }
  if (!Array.isArray(parsed)) throw invalid("annotations must be a JSON array");
  const seen = new Map<string, number>();
  return parsed.map((r: { record_id?: unknown; values?: unknown }, i) => {
    if (typeof r?.record_id !== "string" || !Array.isArray(r.values))
      throw invalid(`annotations[${i}] must have a record_id and values`);
    // The public API: a record once per request, a config name once per record (400 both).
    const first = seen.get(r.record_id);
    if (first !== undefined)
      throw invalid(`annotations[${i}].record_id repeats annotations[${first}].record_id`);
    seen.set(r.record_id, i);
    const values = (r.values as unknown[]).map((v, j) =>
      valueOf(v, `annotations[${i}].values[${j}]`),
    );
    const names = new Set<string>();
    values.forEach((v, j) => {
      if (names.has(v.name))
        throw invalid(
          `annotations[${i}].values[${j}].name ${JSON.stringify(v.name)} appears twice`,
        );
      names.add(v.name);
    });
    return { recordId: r.record_id, values };
  });
}

/**
 * One value, its fields of the types the public API gives them (null counts as left out): a
 * mistyped field is a 400, not silently dropped, which would store an annotation without it.
 */
function valueOf(v: unknown, at: string): AnnotationInput["values"][number] {
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw invalid(`${at} must be an object`);
  const { name, score, label, text } = v as Record<string, unknown>;
  if (typeof name !== "string") throw invalid(`${at}.name must be a string`);
  if (score != null && (typeof score !== "number" || !Number.isFinite(score)))
    throw invalid(`${at}.score must be a number`);
  for (const [field, value] of [
    ["label", label],
    ["text", text],
  ] as const)
    if (value != null && typeof value !== "string")
      throw invalid(`${at}.${field} must be a string`);
  return {
    name,
    ...(typeof score === "number" ? { score } : {}),
    ...(typeof label === "string" ? { label } : {}),
    ...(typeof text === "string" ? { text } : {}),
  };
}

/**
 * How far the caller's clock may run ahead of ours. A client that sends its own `now` as the end,
 * or a start 31 days before it and no end (which is then our later `now`), is within the rules.
 */
export const CLOCK_LEEWAY_MS = 60_000;

/**
 * The public API's bounds of an annotate window: 31 days at most, nothing in the future (each by
 * the caller's clock: see CLOCK_LEEWAY_MS). Two given bounds are held to 31 days exactly.
 */
function checkAnnotateWindow(
  window: { start: string; end: string },
  endGiven: boolean,
  now: Date,
): void {
  const [start, end] = [Date.parse(window.start), Date.parse(window.end)];
  if (end - start > WINDOW_DEFAULTS.annotate + (endGiven ? 0 : CLOCK_LEEWAY_MS))
    throw invalid("the window from start_time to end_time must not exceed 31 days");
  if (Math.max(start, end) > now.getTime() + CLOCK_LEEWAY_MS)
    throw invalid("start_time and end_time must not be in the future");
}

/**
 * `POST /v2/spans/annotate` (202): SPAN records are span ids; TRACE records are the root span
 * ids of traces (a non-root span is refused), and their annotations belong to the trace (its
 * spans show them as `trace_annotations`). Records are looked up in the project within the
 * window; each value upserts by annotation config name and keeps to the configs of the
 * project's space. A record id used twice, or a config name twice in one record, is a 400.
 * The window is at most 31 days and neither of its bounds in the future (400). All or nothing:
 * when any record names nothing in the project within the window, the request is a 404 and
 * nothing is written.
 */
export function annotateCommand(deps: TracingDeps) {
  return async function annotateSpans(
    req: AnnotateSpansRequest,
    ctx: CallContext,
  ): Promise<AnnotateSpansResponse> {
    const granularity = req.granularity || "SPAN";
    if (granularity !== "SPAN" && granularity !== "TRACE")
      throw invalid(`granularity ${granularity} is not supported (SPAN or TRACE)`);
    const now = deps.clock.now();
    const window = windowOf(req.startTime, req.endTime, WINDOW_DEFAULTS.annotate, now.getTime());
    checkAnnotateWindow(window, req.endTime !== "", now);
    const project = await loadProject(deps, ctx, req.projectId, "PROJECT_SPAN_ANNOTATE");
    const records = recordsOf(req.annotations);
    const configs = await deps.configs.named(ctx, project.spaceId, namesOf(records));
    const annotator = await deps.annotators.caller(ctx);
    await deps.commands.transact(async (scope) => {
      await lockSpans(scope, project.id);
      const ids = [...new Set(records.map((r) => r.recordId))];
      // SPAN: the span itself; TRACE: the trace whose root the record names.
      const keyOf =
        granularity === "SPAN"
          ? new Map(
              [...(await deps.store.present(scope.client, project.id, "span", ids, window))].map(
                (id) => [id, id],
              ),
            )
          : await deps.store.tracesOfRoots(scope.client, project.id, ids, window);
      const annotations = decideAnnotations(records, configs, new Set(keyOf.keys()), {
        unmatched: "refuse",
        what: `${granularity === "SPAN" ? "span" : "trace root span"} of the project within the window`,
      }).map((a) => ({
        ...a,
        record_id: keyOf.get(a.record_id)!,
      }));
      const at = now.toISOString();

      const events = annotationChunks(annotations).map((chunk) => ({
        type: "SpansAnnotated" as const,
        data: {
          project_id: project.id,
          space_id: project.spaceId,
          granularity,
          annotator_id: annotator.user_id,
          annotator_email: annotator.email,
          annotations: chunk,
          at,
        },
      }));
      await appendToSpans(scope, ctx, project, events);
    });
    return {};
  };
}
