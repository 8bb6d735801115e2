import { describe, expect, it } from "vitest";
import { startedForFile } from "@argus/testkit";
import {
  listSpans,
  listTraces,
  newSpanId,
  newTraceId,
  projectWith,
  spansPage,
  type RawSpan,
} from "./spans.ts";
import { problemOf, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());

const DAY = 86_400_000;

const one = (o: Partial<RawSpan> = {}): RawSpan => ({
  traceId: newTraceId(),
  spanId: newSpanId(),
  ...o,
});

describe("columns", () => {
  const attributes = {
    "llm.model_name": "gpt-4",
    "input.value": "question",
    "output.value": "answer",
    metadata: { user: "u1", tags: ["a"] },
  };

  it("included_columns keeps only the named attributes; the fixed fields always come back", async () => {
    const id = await projectWith(t, [one({ name: "s", attributes })]);
    const [all] = await listSpans(t, id);
    expect(Object.keys(all!.attributes).sort()).toEqual([
      "input.value",
      "llm.model_name",
      "metadata",
      "openinference.span.kind",
      "output.value",
    ]);
    const [only] = await listSpans(t, id, { includedColumns: ["attributes.llm.model_name"] });
    expect(only!.attributes).toEqual({ "llm.model_name": "gpt-4" });
    for (const field of [
      "name",
      "context",
      "kind",
      "start_time",
      "end_time",
      "latency_ms",
      "status_code",
      "status_message",
    ])
      expect(only).toHaveProperty(field, all![field]);
    const [two] = await listSpans(t, id, {
      includedColumns: ["attributes.input.value", "attributes.metadata"],
    });
    expect(two!.attributes).toEqual({
      "input.value": "question",
      metadata: { user: "u1", tags: ["a"] },
    });
    // A parent path names every key under it; an unknown column names nothing.
    const [parent] = await listSpans(t, id, { includedColumns: ["attributes.llm"] });
    expect(parent!.attributes).toEqual({ "llm.model_name": "gpt-4" });
    const [none] = await listSpans(t, id, { includedColumns: ["attributes.nothing"] });
    expect(none!.attributes).toEqual({});
  });

  it("excluded_columns drops the named attributes; both at once is a 422", async () => {
    const id = await projectWith(t, [one({ name: "s", attributes })]);
    const [span] = await listSpans(t, id, {
      excludedColumns: ["attributes.input.value", "attributes.output.value"],
    });
    expect(Object.keys(span!.attributes).sort()).toEqual([
      "llm.model_name",
      "metadata",
      "openinference.span.kind",
    ]);
    expect(span!.name).toBe("s");
    expect(
      await problemOf(
        listSpans(t, id, {
          includedColumns: ["attributes.input.value"],
          excludedColumns: ["attributes.output.value"],
        }),
      ),
    ).toBe("validation-error");
    expect(await problemOf(listSpans(t, id, { truncateStringLength: -1 }))).toBe(
      "validation-error",
    );
  });

  it("truncate_string_length cuts attribute strings at any depth to N code points", async () => {
    const name = "a span name longer than five";
    const id = await projectWith(t, [
      one({
        name,
        status: { code: 2, message: "a long status message" },
        attributes: {
          "input.value": "abcdefghij",
          exact: "abcde",
          short: "abc",
          emoji: "😀😀😀😀😀😀",
          emojiExact: "😀😀😀😀😀",
          number: 1234567890,
          nested: { deep: { s: "0123456789" }, list: ["xxxxxxxxxx", "yy"] },
        },
      }),
    ]);
    const [span] = await listSpans(t, id, { truncateStringLength: 5 });
    expect(span!.attributes).toEqual({
      "openinference.span.kind": "LLM",
      "input.value": "abcd…",
      exact: "abcde",
      short: "abc",
      emoji: "😀😀😀😀…",
      emojiExact: "😀😀😀😀😀",
      number: 1234567890,
      nested: { deep: { s: "0123…" }, list: ["xxxx…", "yy"] },
    });
    expect(span!.name).toBe(name);
    expect(span!.status_message).toBe("a long status message");
    // 0 leaves them whole.
    const [whole] = await listSpans(t, id, { truncateStringLength: 0 });
    expect(whole!.attributes["input.value"]).toBe("abcdefghij");
  });
});

describe("windows", () => {
  it("both bounds are inclusive, to the microsecond", async () => {
    const base = Math.floor((Date.now() - DAY) / 1000) * 1000;
    // Microsecond start times: base+0.5 ms, base+10 ms, base+20.25 ms, and one on each side.
    const ns = (ms: number) => BigInt(Math.round(ms * 1000)) * 1000n;
    const at = [-1, 0.5, 10, 20.25, 21].map((ms) =>
      one({ name: `at${ms}`, startNs: ns(base + ms) }),
    );
    const id = await projectWith(t, at);
    const iso = (ms: number, micros = "000") =>
      `${new Date(ms).toISOString().slice(0, -1)}${micros}Z`;
    const names = async (startTime: string, endTime: string) =>
      (await listSpans(t, id, { startTime, endTime })).map((s) => s.name).sort();
    // The start at base+0.5 ms and the end at base+20.25 ms, exactly.
    expect(await names(iso(base, "500"), iso(base + 20, "250"))).toEqual([
      "at0.5",
      "at10",
      "at20.25",
    ]);
    // One microsecond inside on either side leaves the edge spans out.
    expect(await names(iso(base, "501"), iso(base + 20, "249"))).toEqual(["at10"]);
    // Start == end names exactly one instant.
    expect(await names(iso(base + 10), iso(base + 10))).toEqual(["at10"]);
    // Other offsets name the same instants.
    const plus2 = new Date(base + 10 + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    expect(await names(plus2, plus2)).toEqual(["at10"]);
  });

  it("a start after the end, or a time that is not RFC 3339, is an invalid request", async () => {
    const id = await projectWith(t, [one()]);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: [string, string][] = [
      [iso(now), iso(now - 1)],
      ["yesterday", ""],
      ["", "2026-01-01"],
      ["2026-13-45T00:00:00Z", ""],
      ["", "2026-01-01 00:00:00"],
      ["1700000000", ""],
      // Dates that JavaScript rolls over (into March) and Postgres refuses.
      ["2026-02-30T00:00:00Z", ""],
      ["", "2026-02-30T00:00:00Z"],
      ["2026-04-31T00:00:00.5+02:00", ""],
      ["0000-01-01T00:00:00Z", ""],
    ];
    for (const [startTime, endTime] of cases) {
      expect({
        startTime,
        endTime,
        problem: await problemOf(listSpans(t, id, { startTime, endTime })),
      }).toEqual({
        startTime,
        endTime,
        problem: "invalid-request",
      });
      expect(await problemOf(listTraces(t, id, { startTime, endTime }))).toBe("invalid-request");
    }
  });

  it("the default window is the last 7 days", async () => {
    const now = Date.now();
    const id = await projectWith(t, [
      one({ name: "8 days", startMs: now - 8 * DAY }),
      one({ name: "6 days", startMs: now - 6 * DAY }),
      one({ name: "now", startMs: now - 1000 }),
    ]);
    expect((await listSpans(t, id)).map((s) => s.name)).toEqual(["now", "6 days"]);
    expect((await listTraces(t, id)).traces).toHaveLength(2);
    const startTime = new Date(now - 9 * DAY).toISOString();
    expect((await listSpans(t, id, { startTime })).map((s) => s.name)).toEqual([
      "now",
      "6 days",
      "8 days",
    ]);
    expect((await listTraces(t, id, { startTime })).traces).toHaveLength(3);
    // An end alone: the week before it.
    const endTime = new Date(now - 5 * DAY).toISOString();
    expect((await listSpans(t, id, { endTime })).map((s) => s.name)).toEqual(["6 days", "8 days"]);
  });
});

describe("pages", () => {
  it("limit 0 is 50; 500 is the most spans a page, 50 the most traces", async () => {
    const start = Date.now() - 3_600_000;
    const spans = Array.from({ length: 60 }, (_, i) => one({ name: `s${i}`, startMs: start + i }));
    const id = await projectWith(t, spans);
    const first = await spansPage(t, id, { limit: 0 });
    expect(first.spans).toHaveLength(50);
    expect(first.nextAfter).not.toBe("");
    expect((await spansPage(t, id, { limit: 500 })).spans).toHaveLength(60);
    expect((await spansPage(t, id, { limit: 500 })).nextAfter).toBe("");
    expect(await problemOf(spansPage(t, id, { limit: 501 }))).toBe("invalid-request");
    expect(await problemOf(spansPage(t, id, { limit: -1 }))).toBe("invalid-request");
    expect((await listTraces(t, id, { limit: 0 })).traces).toHaveLength(50);
    expect((await listTraces(t, id, { limit: 50 })).traces).toHaveLength(50);
    expect(await problemOf(listTraces(t, id, { limit: 51 }))).toBe("invalid-request");
  });

  it("keyset pages never repeat nor skip spans that share one start time", async () => {
    const start = Date.now() - 3_600_000;
    const traces = [newTraceId(), newTraceId(), newTraceId()];
    // 30 spans at one instant, over three traces, plus a few before and after.
    const same = Array.from({ length: 30 }, (_, i) =>
      one({ traceId: traces[i % 3]!, name: `same${i}`, startMs: start }),
    );
    const around = [
      one({ startMs: start - 1 }),
      one({ startMs: start + 1 }),
      one({ startMs: start + 1 }),
    ];
    const id = await projectWith(t, [...same, ...around]);
    const seen: string[] = [];
    const times: string[] = [];
    let after = "";
    let pages = 0;
    do {
      const page = await spansPage(t, id, { limit: 7, after });
      seen.push(...page.spans.map((s) => s.context.span_id));
      times.push(...page.spans.map((s) => s.start_time as string));
      after = page.nextAfter;
      pages += 1;
    } while (after && pages < 20);
    expect(pages).toBe(5);
    expect(seen).toHaveLength(33);
    expect(new Set(seen).size).toBe(33);
    expect(new Set(seen)).toEqual(new Set([...same, ...around].map((s) => s.spanId)));
    expect([...times].sort().reverse()).toEqual(times);

    // The same for traces whose roots share one start time.
    const roots = Array.from({ length: 12 }, () => one({ startMs: start, kind: "CHAIN" }));
    const tid = await projectWith(t, roots);
    const traceIds: string[] = [];
    after = "";
    do {
      const page = await listTraces(t, tid, { limit: 5, after });
      traceIds.push(...page.traces.map((tr) => tr.trace_id));
      after = page.nextAfter;
    } while (after && traceIds.length < 100);
    expect(traceIds).toHaveLength(12);
    expect(new Set(traceIds)).toEqual(new Set(roots.map((r) => r.traceId)));
  });

  it("a page walk keeps the window its first page resolved", async () => {
    const DAY = 86_400_000;
    const now = Date.now();
    const id = await projectWith(t, [
      one({ name: "eight", startMs: now - 8 * DAY }),
      one({ name: "nine", startMs: now - 9 * DAY }),
    ]);
    const startTime = new Date(now - 10 * DAY).toISOString();
    const first = await spansPage(t, id, { startTime, limit: 1 });
    expect(first.spans.map((s) => s.name)).toEqual(["eight"]);
    // Asked again without a window, the walk goes on in the first page's, not the default
    // week (which would hold neither span).
    const second = await spansPage(t, id, { after: first.nextAfter, limit: 1 });
    expect(second.spans.map((s) => s.name)).toEqual(["nine"]);
    expect(await spansPage(t, id, {})).toEqual({ spans: [], nextAfter: "" });
  });

  it("a cursor that is not one of ours is an invalid request, not a failure", async () => {
    const id = await projectWith(t, [one()]);
    for (const after of [
      "not json",
      "{}",
      '["a","b"]',
      '["not a time","x","y"]',
      '["2026-02-30T00:00:00.000000Z","x","y"]',
      '["2026-01-01T00:00:00.000000Z","x","y"]',
      '["2026-01-01T00:00:00.000000Z","x","y","2026-01-01T00:00:00Z","never"]',
      "[1,2,3]",
    ]) {
      expect({ after, problem: await problemOf(spansPage(t, id, { after })) }).toEqual({
        after,
        problem: "invalid-request",
      });
      expect(await problemOf(listTraces(t, id, { after }))).toBe("invalid-request");
    }
  });
});

describe("traces", () => {
  it("a trace of more than 1000 spans comes back with 1000, flagged spans_truncated", async () => {
    const traceId = newTraceId();
    const rootId = newSpanId();
    const start = Date.now() - 3_600_000;
    const spans = [
      one({
        traceId,
        spanId: rootId,
        name: "root",
        startMs: start,
        durationMs: 5000,
        kind: "CHAIN",
      }),
      ...Array.from({ length: 1001 }, (_, i) =>
        one({ traceId, parentId: rootId, name: `c${i}`, startMs: start + 1 + i }),
      ),
    ];
    const id = await projectWith(t, spans);
    const { traces } = await listTraces(t, id);
    expect(traces).toHaveLength(1);
    const [tr] = traces;
    expect(tr!.trace_id).toBe(traceId);
    expect(tr!.root_span_id).toBe(rootId);
    expect(tr!.spans_truncated).toBe(true);
    expect(tr!.spans).toHaveLength(1000);
    // Oldest first: the root, then the first children.
    expect(tr!.spans[0]!.name).toBe("root");
    expect(tr!.spans[999]!.name).toBe("c998");
    expect(Date.parse(tr!.start_time)).toBe(start);

    // 1000 exactly is not truncated.
    const small = newTraceId();
    const smallRoot = newSpanId();
    const id2 = await projectWith(t, [
      one({ traceId: small, spanId: smallRoot, startMs: start, kind: "CHAIN" }),
      ...Array.from({ length: 999 }, (_, i) =>
        one({ traceId: small, parentId: smallRoot, startMs: start + 1 + i }),
      ),
    ]);
    const [whole] = (await listTraces(t, id2)).traces;
    expect(whole!.spans).toHaveLength(1000);
    expect(whole!.spans_truncated).toBe(false);
  });

  it("two root spans of one trace are two entries", async () => {
    const traceId = newTraceId();
    const [a, b] = [newSpanId(), newSpanId()];
    const start = Date.now() - 3_600_000;
    const id = await projectWith(t, [
      one({ traceId, spanId: a, name: "first root", startMs: start, kind: "CHAIN" }),
      one({ traceId, spanId: b, name: "second root", startMs: start + 5, kind: "CHAIN" }),
      one({ traceId, parentId: a, name: "child", startMs: start + 1 }),
    ]);
    const { traces } = await listTraces(t, id);
    expect(traces.map((tr) => tr.root_span_id)).toEqual([b, a]);
    for (const tr of traces) {
      expect(tr.trace_id).toBe(traceId);
      expect(tr.spans.map((s) => s.name)).toEqual(["first root", "child", "second root"]);
    }
  });

  it("a trace matches a filter when any of its spans does", async () => {
    const start = Date.now() - 3_600_000;
    const [t1, t2] = [newTraceId(), newTraceId()];
    const [r1, r2] = [newSpanId(), newSpanId()];
    const id = await projectWith(t, [
      one({ traceId: t1, spanId: r1, startMs: start, kind: "CHAIN" }),
      one({
        traceId: t1,
        parentId: r1,
        startMs: start + 1,
        attributes: { "llm.model_name": "special" },
      }),
      one({ traceId: t2, spanId: r2, startMs: start + 2, kind: "CHAIN" }),
      one({
        traceId: t2,
        parentId: r2,
        startMs: start + 3,
        attributes: { "llm.model_name": "plain" },
      }),
    ]);
    const match = await listTraces(t, id, { filter: "attributes.llm.model_name = 'special'" });
    expect(match.traces.map((tr) => tr.root_span_id)).toEqual([r1]);
    expect(match.traces[0]!.spans).toHaveLength(2);
    const both = await listTraces(t, id, { filter: "span_kind = 'LLM'" });
    expect(both.traces.map((tr) => tr.root_span_id)).toEqual([r2, r1]);
    expect((await listTraces(t, id, { filter: "name = 'nothing'" })).traces).toEqual([]);
    expect(await problemOf(listTraces(t, id, { filter: "nope = 1" }))).toBe("invalid-request");
  });
});
