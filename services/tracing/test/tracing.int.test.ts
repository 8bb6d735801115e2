import { describe, expect, it } from "vitest";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { Encoding, TracingServiceService as T } from "@argus/proto/tracing/v1/tracing";
import { startedForFile, uniqueName } from "@argus/testkit";
import {
  exportRaw,
  exportSpans as exportWith,
  listSpans,
  newSpanId,
  newTraceId,
  projectIdOf as idOf,
  record,
  traceOf,
} from "./spans.ts";
import { problemOf, problemWith, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());

const exportSpans = (spans: ReadableSpan[], encoding: "protobuf" | "json" = "protobuf") =>
  exportWith(t, spans, encoding);
const projectIdOf = (name: string) => idOf(t, name);
const list = async (projectId: string, extra: object = {}) =>
  (await listSpans(t, projectId, extra)) as Record<string, unknown>[];

describe("OTLP export", () => {
  it("stores a trace from protobuf and from JSON; the project is created on first use", async () => {
    const project = uniqueName("proj");
    const res = await exportSpans(await record(project, traceOf(3)));
    expect(res.rejectedSpans).toBe(0n);
    const id = await projectIdOf(project);
    const spans = await list(id);
    expect(spans).toHaveLength(4);
    expect(spans.map((s) => s.name)).toEqual(["llm-2", "llm-1", "llm-0", "root"]);
    const root = spans[3]!;
    expect(root.kind).toBe("CHAIN");
    expect(root.parent_id).toBeUndefined();
    expect((spans[0]!.parent_id as string).length).toBe(16);
    expect(spans[2]!.status_code).toBe("ERROR");
    expect(spans[2]!.status_message).toBe("boom");
    expect(root.latency_ms).toBe(100);

    await exportSpans(await record(project, traceOf(1)), "json");
    expect(await list(id)).toHaveLength(6);
  });

  it("a re-sent batch is stored once", async () => {
    const project = uniqueName("proj");
    const spans = await record(project, traceOf(2));
    await exportSpans(spans);
    await exportSpans(spans);
    expect(await list(await projectIdOf(project))).toHaveLength(3);
  });

  it("malformed protobuf is INVALID_ARGUMENT and stores nothing", async () => {
    expect(
      await problemOf(
        t.call(T.export, {
          payload: Buffer.from([0x0a, 0xff, 0xff]),
          encoding: Encoding.ENCODING_PROTOBUF,
          spaceId: t.spaceId,
        }),
      ),
    ).toBe("invalid-request");
  });

  it("spans outside the kept days are rejected as partial success", async () => {
    const project = uniqueName("proj");
    const old = await record(project, traceOf(0, 400 * 86_400_000));
    const fresh = await record(project, traceOf(0));
    const res = await exportSpans([...old, ...fresh]);
    expect(res.rejectedSpans).toBe(1n);
    expect(res.errorMessage).toMatch(/outside the stored window/);
  });

  it("all_or_nothing (the SDK's spans.log): a span that cannot be stored refuses the request whole, before its project is created", async () => {
    const project = uniqueName("proj");
    const trace = newTraceId();
    // One start, so that the span sent twice below is stored once.
    const good = { traceId: trace, spanId: newSpanId(), startMs: Date.now() - 60_000 };
    const cases = [
      {
        spans: [good, { traceId: trace, spanId: "00" }],
        reason: /span 1 of resource 0 has no valid span_id/,
      },
      {
        spans: [
          good,
          { traceId: trace, spanId: newSpanId(), startMs: Date.now() - 400 * 86_400_000 },
        ],
        reason: /1 spans start outside the stored window/,
      },
    ];
    for (const c of cases)
      expect(await problemWith(exportRaw(t, project, c.spans, { allOrNothing: true }))).toEqual({
        type: "invalid-request",
        detail: expect.stringMatching(c.reason) as string,
      });
    await expect(projectIdOf(project)).rejects.toThrow(/no project/);
    // Without it, the same request is OTLP's partial success.
    expect((await exportRaw(t, project, cases[0]!.spans)).rejectedSpans).toBe(1n);
    const res = await exportRaw(t, project, [good, { traceId: trace, spanId: newSpanId() }], {
      allOrNothing: true,
    });
    expect(res).toEqual({ rejectedSpans: 0n, errorMessage: "" });
    expect(await list(await projectIdOf(project))).toHaveLength(2);
  });
});

describe("lists", () => {
  it("pages newest first, filters, windows and builds traces", async () => {
    const project = uniqueName("proj");
    await exportSpans(await record(project, traceOf(4)));
    const id = await projectIdOf(project);
    const seen: string[] = [];
    let after = "";
    do {
      const page = await t.call(T.listSpans, {
        projectId: id,
        startTime: "",
        endTime: "",
        filter: "",
        includedColumns: [],
        excludedColumns: [],
        truncateStringLength: 0,
        page: { limit: 2, after },
      });
      seen.push(...page.spans.map((s) => (JSON.parse(s) as { name: string }).name));
      after = page.page?.nextAfter ?? "";
    } while (after);
    expect(seen).toEqual(["llm-3", "llm-2", "llm-1", "llm-0", "root"]);

    expect((await list(id, { filter: "status_code = 'ERROR'" })).map((s) => s.name)).toEqual([
      "llm-0",
    ]);
    expect(
      (await list(id, { filter: "attributes.llm.model_name = 'm1'" })).map((s) => s.name),
    ).toEqual(["llm-3", "llm-1"]);
    expect((await list(id, { filter: "span_kind = 'CHAIN' and latency_ms >= 100" })).length).toBe(
      1,
    );
    expect(await problemOf(list(id, { filter: "status_code = " }))).toBe("invalid-request");
    expect(await list(id, { endTime: new Date(Date.now() - 3_600_000).toISOString() })).toEqual([]);

    const traces = await t.call(T.listTraces, {
      projectId: id,
      startTime: "",
      endTime: "",
      filter: "span_kind = 'LLM'",
      page: { limit: 50, after: "" },
    });
    expect(traces.traces).toHaveLength(1);
    const tr = JSON.parse(traces.traces[0]!) as { spans: unknown[]; spans_truncated: boolean };
    expect(tr.spans).toHaveLength(5);
    expect(tr.spans_truncated).toBe(false);
  });
});

describe("delete", () => {
  it("deletes named spans, reports the rest, and is idempotent", async () => {
    const project = uniqueName("proj");
    await exportSpans(await record(project, traceOf(2)));
    const id = await projectIdOf(project);
    const ids = (await list(id)).map((s) => (s.context as { span_id: string }).span_id);
    const req = {
      projectId: id,
      spanIds: [ids[0]!, "0000000000000001"],
      startTime: "",
      endTime: "",
    };
    const first = await t.call(T.deleteSpans, req);
    expect(first.deletedSpanIds).toEqual([ids[0]]);
    expect(first.notDeletedSpanIds).toEqual(["0000000000000001"]);
    const again = await t.call(T.deleteSpans, req);
    expect(again.deletedSpanIds).toEqual([]);
    expect(await list(id)).toHaveLength(2);
  });
});
