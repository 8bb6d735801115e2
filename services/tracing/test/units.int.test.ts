import { beforeAll, describe, expect, it } from "vitest";
import { callUnary } from "@argus/platform";
import {
  SpanDirectoryService,
  type UnitsToEvaluateRequest,
  type UnitsToEvaluateResponse,
  type UnitToEvaluate,
} from "@argus/proto/tracing/v1/tracing";
import { startedForFile } from "@argus/testkit";
import { newSpanId, newTraceId, projectWith, type RawSpan } from "./spans.ts";
import { problemOf, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());
let projectId: string;

/** A trace: its root and one child of `kind`, `session` on the root, the child, or neither. */
interface Shape {
  name: string;
  kind: string;
  session?: { id: string; on: "root" | "child" };
}

const start = Date.now() - 600_000;
const trees = new Map<string, { traceId: string; rootId: string; childId: string }>();

function spansOf(shapes: Shape[]): RawSpan[] {
  return shapes.flatMap((s, i) => {
    const ids = { traceId: newTraceId(), rootId: newSpanId(), childId: newSpanId() };
    trees.set(s.name, ids);
    const session = (on: "root" | "child") =>
      s.session?.on === on ? { "session.id": s.session.id } : {};
    return [
      {
        traceId: ids.traceId,
        spanId: ids.rootId,
        name: `${s.name}-root`,
        kind: "CHAIN",
        startMs: start + i * 1000,
        attributes: session("root"),
      },
      {
        traceId: ids.traceId,
        spanId: ids.childId,
        parentId: ids.rootId,
        name: `${s.name}-child`,
        kind: s.kind,
        startMs: start + i * 1000 + 1,
        attributes: session("child"),
      },
    ];
  });
}

// Oldest first. Session s1 is traces a and b; s3 is carried by e's child only.
const SHAPES: Shape[] = [
  { name: "a", kind: "LLM", session: { id: "s1", on: "root" } },
  { name: "b", kind: "TOOL", session: { id: "s1", on: "root" } },
  { name: "c", kind: "LLM", session: { id: "s2", on: "root" } },
  { name: "d", kind: "LLM" },
  { name: "e", kind: "LLM", session: { id: "s3", on: "child" } },
];

beforeAll(async () => {
  projectId = await projectWith(t, spansOf(SHAPES), {}, "units");
});

const ask = (req: Partial<UnitsToEvaluateRequest>, as = "task-runner") =>
  callUnary(
    t.tracing,
    SpanDirectoryService.unitsToEvaluate,
    {
      accountId: t.admin.accountId,
      projectId,
      startTime: new Date(start - 1000).toISOString(),
      endTime: new Date(Date.now() + 60_000).toISOString(),
      granularity: "TRACE",
      filters: {},
      expression: "",
      after: "",
      limit: 0,
      ...req,
    },
    { credential: t.keys.service(as), requestId: "units" },
  );

/** Every page, `limit` at a time: the units in the order met. */
async function walk(req: Partial<UnitsToEvaluateRequest>, limit: number) {
  const units: UnitToEvaluate[] = [];
  let after = "";
  let pages = 0;
  do {
    const page: UnitsToEvaluateResponse = await ask({ ...req, after, limit });
    units.push(...page.units);
    after = page.nextAfter;
    pages++;
  } while (after !== "" && pages < 20);
  return units;
}

const traceName = (traceId: string) => [...trees].find(([, ids]) => ids.traceId === traceId)?.[0];

describe("UnitsToEvaluate", () => {
  it("walks traces newest first, one page at a time, each with its spans oldest first", async () => {
    const units = await walk({}, 1);
    expect(units.map((u) => traceName(u.id))).toEqual(["e", "d", "c", "b", "a"]);
    const e = units[0]!;
    expect(e.rootSpanId).toBe(trees.get("e")!.rootId);
    expect(e.spans.map((s) => s.name)).toEqual(["e-root", "e-child"]);
    expect(e.spansTruncated).toBe(false);
  });

  it("admits traces by the filters' expression; each span says which filters it matches", async () => {
    const filters = { A: "span_kind = 'LLM'", B: "span_kind = 'TOOL'" };
    const units = await walk({ filters, expression: "A and not B" }, 2);
    expect(units.map((u) => traceName(u.id))).toEqual(["e", "d", "c", "a"]);
    expect(units[0]!.spans.map((s) => s.matches)).toEqual([[], ["A"]]);
    const toolOnly = await walk({ filters, expression: "B" }, 50);
    expect(toolOnly.map((u) => traceName(u.id))).toEqual(["b"]);
    // One filter needs no expression.
    const lone = await walk({ filters: { B: filters.B } }, 50);
    expect(lone.map((u) => traceName(u.id))).toEqual(["b"]);
  });

  it("walks sessions newest first, each once across pages, written on its earliest trace's root", async () => {
    const units = await walk({ granularity: "SESSION" }, 1);
    expect(units.map((u) => u.id)).toEqual(["s3", "s2", "s1"]);
    const s1 = units[2]!;
    expect(s1.rootSpanId).toBe(trees.get("a")!.rootId);
    expect(s1.spans.map((s) => s.name)).toEqual(["a-root", "a-child", "b-root", "b-child"]);
    // A session carried by a child span only is still its trace's, written on its root.
    expect(units[0]!.rootSpanId).toBe(trees.get("e")!.rootId);
    const withTool = await walk(
      { granularity: "SESSION", filters: { A: "span_kind = 'TOOL'" }, expression: "A" },
      1,
    );
    expect(withTool.map((u) => u.id)).toEqual(["s1"]);
  });

  it("refuses what it cannot read (INVALID_ARGUMENT), and callers other than the task runner", async () => {
    const refused = (req: Partial<UnitsToEvaluateRequest>) => problemOf(ask(req));
    expect(await refused({ granularity: "SPAN" })).toBe("invalid-request");
    expect(await refused({ filters: { A: "x = 1", B: "x = 2" } })).toBe("invalid-request");
    expect(await refused({ filters: { A: "name = 'a'" }, expression: "A or C" })).toBe(
      "invalid-request",
    );
    expect(await refused({ filters: { F: "name = 'a'" } })).toBe("invalid-request");
    expect(await refused({ after: "nonsense" })).toBe("invalid-request");
    expect(await problemOf(ask({}, "catalog"))).not.toBe("ok");
    expect(await refused({})).toBe("ok");
  });
});
