import { beforeAll, describe, expect, it } from "vitest";
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
import { problemOf, problemWith, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());
let projectId: string;
const trace1 = newTraceId();
const trace2 = newTraceId();
const ids = { alpha: newSpanId(), beta: newSpanId(), Gamma: newSpanId(), delta: newSpanId() };

beforeAll(async () => {
  const start = Date.now() - 3_600_000;
  const spans: RawSpan[] = [
    {
      traceId: trace1,
      spanId: ids.alpha,
      name: "alpha",
      kind: "LLM",
      startMs: start,
      durationMs: 100,
      status: { code: 2, message: "it's broken" },
      attributes: {
        "llm.model_name": "gpt-4",
        "llm.token_count.total": 120,
        metadata: { user: { id: "u1" }, tags: ["a", "b"] },
        quote: "it's",
        flag: true,
      },
    },
    {
      traceId: trace1,
      spanId: ids.beta,
      parentId: ids.alpha,
      name: "beta",
      kind: "CHAIN",
      startMs: start + 1,
      durationMs: 100,
      status: { code: 1 },
      attributes: {
        "llm.model_name": "claude",
        "llm.token_count.total": 30,
        metadata: { user: { id: "u2" } },
        score: 0.5,
      },
    },
    {
      traceId: trace1,
      spanId: ids.Gamma,
      parentId: ids.alpha,
      name: "Gamma",
      kind: "TOOL",
      startMs: start + 2,
      durationMs: 250,
      attributes: { metadata: { tags: ["c"] } },
    },
    {
      traceId: trace2,
      spanId: ids.delta,
      name: "delta",
      kind: "LLM",
      startMs: start + 3,
      durationMs: 100,
      attributes: { llm: { model_name: "nested-model" } },
    },
  ];
  projectId = await projectWith(t, spans);
});

const names = async (filter: string) =>
  (await listSpans(t, projectId, { filter })).map((s) => s.name).sort();

describe("span filters", () => {
  it.each([
    ["name = 'alpha'", ["alpha"]],
    ["name != 'alpha'", ["Gamma", "beta", "delta"]],
    ["name = 'ALPHA'", []],
    ["attributes.llm.token_count.total > 100", ["alpha"]],
    ["attributes.llm.token_count.total >= 30", ["alpha", "beta"]],
    ["attributes.llm.token_count.total < 120", ["beta"]],
    ["attributes.llm.token_count.total <= 120", ["alpha", "beta"]],
    ["attributes.llm.token_count.total = 120.0", ["alpha"]],
    // A string never orders against a number.
    ["attributes.llm.token_count.total > '1'", []],
    ["name IN ('alpha', 'Gamma', 'nobody')", ["Gamma", "alpha"]],
    ["name NOT IN ('alpha')", ["Gamma", "beta", "delta"]],
    ["attributes.score NOT IN (0.7)", ["beta"]],
    ["name LIKE 'al%'", ["alpha"]],
    ["name LIKE '%mm%'", ["Gamma"]],
    ["name LIKE 'g%'", []],
    ["name ILIKE 'g%'", ["Gamma"]],
    ["name NOT ILIKE 'g%'", ["alpha", "beta", "delta"]],
    ["name LIKE '_eta'", ["beta"]],
    ["attributes.metadata.tags CONTAINS 'a'", ["alpha"]],
    ["attributes.metadata.tags CONTAINS 'c'", ["Gamma"]],
    ["status_message CONTAINS 'broken'", ["alpha"]],
    ["attributes.metadata.tags NOT CONTAINS 'a'", ["Gamma"]],
    ["attributes.score IS NULL", ["Gamma", "alpha", "delta"]],
    ["attributes.score IS NOT NULL", ["beta"]],
    ["attributes.score = null", ["Gamma", "alpha", "delta"]],
    ["attributes.score != null", ["beta"]],
    ["attributes.score = 0.5", ["beta"]],
    ["attributes.flag = true", ["alpha"]],
    ["attributes.flag = false", []],
    ["status_code = 'ERROR'", ["alpha"]],
    ["status_code = 'OK' or status_code = 'UNSET'", ["Gamma", "beta", "delta"]],
    ["span_kind = 'LLM' AND attributes.llm.model_name = 'gpt-4'", ["alpha"]],
    ["(span_kind = 'LLM' OR span_kind = 'TOOL') AND NOT name = 'delta'", ["Gamma", "alpha"]],
    ["NOT (span_kind = 'LLM' OR span_kind = 'TOOL')", ["beta"]],
    ["span_kind = 'LLM' OR span_kind = 'TOOL' AND name = 'delta'", ["alpha", "delta"]],
    ["kind = 'CHAIN'", ["beta"]],
    ["parent_id IS NULL", ["alpha", "delta"]],
    [`parent_id = '${ids.alpha}'`, ["Gamma", "beta"]],
    // Quotes doubled inside a string stand for themselves.
    ["attributes.quote = 'it''s'", ["alpha"]],
    ["status_message = 'it''s broken'", ["alpha"]],
    // Dotted OTLP keys, literal or as a path; nested values by path; quoted segments.
    ["attributes.llm.model_name = 'gpt-4'", ["alpha"]],
    ["attributes.llm.model_name = 'nested-model'", ["delta"]],
    [`attributes."llm.model_name" = 'claude'`, ["beta"]],
    ["attributes.metadata.user.id = 'u2'", ["beta"]],
    ["attributes.metadata.user.id != 'u2'", ["alpha"]],
    ["attributes.nothing.here = 'x'", []],
    ["latency_ms >= 250", ["Gamma"]],
    ["latency_ms = 100", ["alpha", "beta", "delta"]],
    ["latency_ms < 250 and latency_ms > 99.5", ["alpha", "beta", "delta"]],
    // Without evaluations, an evaluation field is null: it matches nothing but IS NULL.
    ["eval.correctness.score > 0", []],
    ["eval.correctness.label = 'correct'", []],
    ["eval.correctness.score IS NULL", ["Gamma", "alpha", "beta", "delta"]],
  ])("%s", async (filter, expected) => {
    expect(await names(filter)).toEqual([...expected].sort());
  });

  it("filters hold across pages of spans and of traces", async () => {
    const filter = "span_kind IN ('LLM', 'TOOL') and name != 'nobody'";
    const seen: string[] = [];
    let after = "";
    do {
      const page = await spansPage(t, projectId, { filter, limit: 1, after });
      seen.push(...page.spans.map((s) => s.name));
      after = page.nextAfter;
    } while (after && seen.length < 10);
    expect(seen).toEqual(["delta", "Gamma", "alpha"]);
    const traces: string[] = [];
    after = "";
    do {
      const page = await listTraces(t, projectId, { filter, limit: 1, after });
      traces.push(...page.traces.map((tr) => tr.trace_id));
      after = page.nextAfter;
    } while (after && traces.length < 10);
    expect(traces).toEqual([trace2, trace1]);
  });

  it("context.trace_id and context.span_id name the span's ids", async () => {
    expect(await names(`context.trace_id = '${trace2}'`)).toEqual(["delta"]);
    expect(await names(`trace_id = '${trace1}'`)).toEqual(["Gamma", "alpha", "beta"]);
    expect(await names(`context.span_id = '${ids.beta}'`)).toEqual(["beta"]);
    expect(await names(`context.span_id IN ('${ids.beta}', '${ids.delta}')`)).toEqual([
      "beta",
      "delta",
    ]);
  });

  it("evaluation fields read the span's evaluations", async () => {
    await t.pool.query(
      `insert into span_evaluations (project_id, span_id, name, score, label, explanation, updated_at)
       values ($1, $2, 'correctness', 0.9, 'correct', 'fine', now()),
              ($1, $3, 'correctness', 0.1, 'incorrect', null, now())`,
      [projectId, ids.alpha, ids.Gamma],
    );
    try {
      expect(await names("eval.correctness.score > 0.5")).toEqual(["alpha"]);
      expect(await names("eval.correctness.label = 'incorrect'")).toEqual(["Gamma"]);
      expect(await names("eval.correctness.explanation IS NOT NULL")).toEqual(["alpha"]);
      expect(await names("eval.other.score IS NOT NULL")).toEqual([]);
      const [alpha] = await listSpans(t, projectId, { filter: "name = 'alpha'" });
      expect(alpha!.evaluations).toEqual([
        { name: "correctness", score: 0.9, label: "correct", explanation: "fine" },
      ]);
    } finally {
      await t.pool.query("delete from span_evaluations where project_id = $1", [projectId]);
    }
  });

  it("an unknown name is an invalid request naming it", async () => {
    for (const [filter, name] of [
      ["foo = 'x'", "foo"],
      ["context.parent = 'x'", "context.parent"],
      ["annotation.quality = 'x'", "annotation.quality"],
      ["annotation.quality.colour = 'x'", "annotation.quality.colour"],
      ["eval.correctness.text = 'x'", "eval.correctness.text"],
      ["attributes = 'x'", "attributes"],
      ["name = 'alpha' and bogus.field IS NULL", "bogus.field"],
    ] as const) {
      const p = await problemWith(listSpans(t, projectId, { filter }));
      expect(p.type).toBe("invalid-request");
      expect(p.detail).toContain(`"${name}"`);
      expect(await problemOf(listTraces(t, projectId, { filter }))).toBe("invalid-request");
    }
  });

  it("a syntax error is an invalid request naming the position", async () => {
    const cases: [string, number][] = [
      ["name = 'alpha' AND", 19],
      ["name = 'alpha' )", 16],
      ["name 'alpha'", 6],
      ["(name = 'alpha'", 16],
      ["name = 'alpha", 8],
      ["name IN 'alpha'", 9],
      ["latency_ms > null", 14],
      ["name LIKE 'a\\'", 11],
    ];
    for (const [filter, position] of cases) {
      const p = await problemWith(listSpans(t, projectId, { filter }));
      expect({ filter, type: p.type }).toEqual({ filter, type: "invalid-request" });
      expect(p.detail).toMatch(new RegExp(`position ${position}\\b`));
    }
    expect(await problemOf(listSpans(t, projectId, { filter: "   " }))).toBe("invalid-request");
  });

  it("injection attempts are refused or match nothing, and spans stay", async () => {
    const attempts = [
      "name = 'x'; drop table spans; --'",
      `attributes."a'); drop table spans;--" = 'x'`,
      "name = 'x'' or ''1''=''1'",
      "name = 'x' or 1=1",
      `attributes."llm.model_name"" = 'x'; drop table spans; --" IS NOT NULL`,
      "name LIKE '%'' or true --'",
      'eval."x\'); delete from spans; --".score > 0',
      "annotation.\"q') or true --\".label = 'x'",
      "name = $1",
      "name = E'\\x27'",
    ];
    for (const filter of attempts) {
      const p = await problemWith(listSpans(t, projectId, { filter }));
      if (p.type === "ok") {
        expect({ filter, names: await names(filter) }).toEqual({ filter, names: [] });
      } else expect({ filter, type: p.type }).toEqual({ filter, type: "invalid-request" });
    }
    expect(await names("name IS NOT NULL")).toEqual(["Gamma", "alpha", "beta", "delta"]);
    const { rows } = await t.pool.query<{ n: string }>(
      "select count(*) as n from spans where project_id = $1",
      [projectId],
    );
    expect(rows[0]!.n).toBe("4");
  });
});
