import { beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "@argus/platform";
import { TracingServiceService as T } from "@argus/proto/tracing/v1/tracing";
import { startedForFile, uniqueName } from "@argus/testkit";
import { exportRaw, listSpans, listTraces, newSpanId, newTraceId, projectIdOf } from "./spans.ts";
import { startTracingUnderTest } from "./tracingUnderTest.ts";

// Far from the wall clock, so a time taken from the system's clock would show.
const pinned = new Date("2026-03-04T05:06:07.089Z");
const HOUR = 3_600_000;

const t = startedForFile(() => startTracingUnderTest({}, { clock: fixedClock(pinned) }));

beforeAll(async () => {
  await t.createNotesConfig();
});

describe("the tracing service's clock", () => {
  it("decides which days are stored, the default windows, and the times of writes", async () => {
    const project = uniqueName("proj");
    const [before, after, today] = [newSpanId(), newSpanId(), newSpanId()];
    const sent = await exportRaw(t, project, [
      { traceId: newTraceId(), spanId: before, name: "before", startMs: pinned.getTime() - HOUR },
      { traceId: newTraceId(), spanId: after, name: "after", startMs: pinned.getTime() + HOUR },
      // Months after the clock's day: outside the days it stores.
      { traceId: newTraceId(), spanId: today, name: "today", startMs: Date.now() - 60_000 },
    ]);
    expect(sent.rejectedSpans).toBe(1n);
    expect(sent.errorMessage).toMatch(/outside the stored window/);
    const projectId = await projectIdOf(t, project);

    // Lists end at the clock's now by default; a later end names the span after it.
    expect((await listSpans(t, projectId)).map((s) => s.name)).toEqual(["before"]);
    expect((await listTraces(t, projectId)).traces.map((r) => r.spans[0]!.name)).toEqual([
      "before",
    ]);
    const later = new Date(pinned.getTime() + 2 * HOUR).toISOString();
    expect((await listSpans(t, projectId, { endTime: later })).map((s) => s.name)).toEqual([
      "after",
      "before",
    ]);

    await t.call(T.annotateSpans, {
      projectId,
      startTime: "",
      endTime: "",
      granularity: "SPAN",
      annotations: JSON.stringify([{ record_id: before, values: [{ name: "notes", text: "n" }] }]),
    });
    // The delete's default window also ends at the clock's now (exclusive): "after" stays.
    const deleted = await t.call(T.deleteSpans, {
      projectId,
      spanIds: [before, after],
      startTime: "",
      endTime: "",
    });
    expect([deleted.deletedSpanIds, deleted.notDeletedSpanIds]).toEqual([[before], [after]]);

    const { rows } = await t.pool.query<{ type: string; at: string }>(
      `select event_type as type,
              coalesce(data->>'received_at', data->>'at', data->>'deleted_at') as at
         from events where stream_id = $1 order by stream_version`,
      [`project_spans-${projectId}`],
    );
    expect(rows).toEqual([
      { type: "SpansReceived", at: pinned.toISOString() },
      { type: "SpansAnnotated", at: pinned.toISOString() },
      { type: "SpansDeleted", at: pinned.toISOString() },
    ]);
  });
});
