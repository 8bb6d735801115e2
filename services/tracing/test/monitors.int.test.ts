import { beforeAll, describe, expect, it } from "vitest";
import type { MonitorDimension, MonitorFilter, TracingMetric } from "@argus/contracts";
import { MonitorServiceService as M, type MonitorFields } from "@argus/proto/tracing/v1/monitors";
import { latencyMonitor } from "./monitorFields.ts";
import { AccountRole } from "@argus/proto/common/v1";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { DashboardServiceService as D } from "@argus/proto/tracing/v1/dashboards";
import { startedForFile, uniqueName } from "@argus/testkit";
import { measureSeries, measureWindow } from "../src/monitors/metricSql.ts";
import {
  exportRaw,
  newSpanId,
  newTraceId,
  projectIdOf,
  projectWith,
  type RawSpan,
} from "./spans.ts";
import { problemWith, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());
let projectId: string;

// Every span of the window: latency, tokens, a route (absent on some), tags (a list), status.
const WINDOW_END = Date.now() - 60_000;
const WINDOW = { start: new Date(WINDOW_END - 600_000), end: new Date(WINDOW_END) };
interface Seeded {
  latency: number;
  tokens: number | null;
  route: string | null;
  tags: string[];
  error: boolean;
  score: number | null;
  label: string | null;
  spanId: string;
  traceId: string;
  root: boolean;
}
const seeded: Seeded[] = Array.from({ length: 40 }, (_, i) => ({
  latency: 10 + ((i * 37) % 97) * 5,
  tokens: i % 5 === 4 ? null : 100 + i,
  route: i % 4 === 0 ? null : ["/a", "/b", "/c"][i % 3]!,
  tags: i % 2 === 0 ? ["x", "y"] : ["z"],
  error: i % 10 === 3,
  score: i % 3 === 0 ? null : (i % 7) / 7,
  label: i % 3 === 0 ? null : i % 2 === 0 ? "good" : "bad",
  spanId: newSpanId(),
  traceId: newTraceId(),
  root: true,
}));

beforeAll(async () => {
  const spans: RawSpan[] = seeded.map((s, i) => ({
    traceId: s.traceId,
    spanId: s.spanId,
    name: `span-${i}`,
    startMs: WINDOW.start.getTime() + i * 10_000,
    durationMs: s.latency,
    status: s.error ? { code: 2, message: "boom" } : { code: 1 },
    attributes: {
      ...(s.tokens === null ? {} : { "llm.token_count.total": s.tokens }),
      ...(s.route === null ? {} : { route: s.route }),
      tags: s.tags,
    },
  }));
  // Outside the window on both sides: never counted.
  spans.push(
    {
      traceId: newTraceId(),
      spanId: newSpanId(),
      startMs: WINDOW.start.getTime() - 1,
      durationMs: 99_999,
    },
    {
      traceId: newTraceId(),
      spanId: newSpanId(),
      startMs: WINDOW.end.getTime(),
      durationMs: 99_999,
    },
  );
  projectId = await projectWith(t, spans, {}, "metrics");
  // TEST SETUP: evaluations as a task's run writes them, annotations as the projection does.
  for (const s of seeded) {
    if (s.score === null && s.label === null) continue;
    await t.pool.query(
      `insert into span_evaluations (project_id, span_id, name, score, label, updated_at)
       values ($1, $2, 'correctness', $3, $4, now())`,
      [projectId, s.spanId, s.score, s.label],
    );
    // The same value as a human annotation: on the span for half, on the trace for the rest.
    const onSpan = s.spanId < s.traceId;
    await t.pool.query(
      `insert into span_annotations (project_id, granularity, record_id, name, score, label, updated_at)
       values ($1, $2, $3, 'quality', $4, $5, now())`,
      [projectId, onSpan ? "SPAN" : "TRACE", onSpan ? s.spanId : s.traceId, s.score, s.label],
    );
  }
}, 60_000);

// ---- The same metrics, computed here from what was sent ----
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** Postgres's percentile_cont: linear interpolation between the closest ranks. */
function percentile(xs: number[], q: number): number {
  const s = sorted(xs);
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const numeric: Record<string, (xs: number[]) => number> = {
  AVG: mean,
  SUM: (xs) => xs.reduce((a, b) => a + b, 0),
  STANDARD_DEVIATION: (xs) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2))),
  P50: (xs) => percentile(xs, 0.5),
  P95: (xs) => percentile(xs, 0.95),
  P99: (xs) => percentile(xs, 0.99),
  P99_9: (xs) => percentile(xs, 0.999),
};

const measure = (
  metric: TracingMetric,
  dimension: MonitorDimension,
  filters: MonitorFilter[] = [],
) => measureWindow(t.pool, { metric, dimension, filters }, projectId, WINDOW);
const attr = (name: string): MonitorDimension => ({ category: "SPAN_ATTRIBUTE", name });

/** A list of monitors filtered by nothing: every filter of the request empty. */
const NO_FILTERS = {
  spaceId: "",
  spaceName: "",
  name: "",
  projectId: "",
  projectName: "",
  type: "",
  status: "",
  dimensionCategory: "",
  dimensionName: "",
  dataQualityMetric: "",
  performanceMetric: "",
  driftMetric: "",
  customMetricId: "",
};

describe("metric SQL, per metric, on real Postgres", () => {
  it("each numeric metric over latency_ms is what the spans say", async () => {
    const latencies = seeded.map((s) => s.latency);
    for (const [metric, f] of Object.entries(numeric)) {
      const got = await measure(metric as TracingMetric, attr("latency_ms"));
      expect([metric, got.spans]).toEqual([metric, 40]);
      expect(got.value, metric).toBeCloseTo(f(latencies), 6);
    }
  });

  it("numeric metrics over an attribute take only its numbers (absent ones are left out)", async () => {
    const tokens = seeded.flatMap((s) => (s.tokens === null ? [] : [s.tokens]));
    for (const name of ["llm.token_count.total", "attributes.llm.token_count.total"])
      for (const [metric, f] of Object.entries(numeric))
        expect(
          (await measure(metric as TracingMetric, attr(name))).value,
          `${metric} ${name}`,
        ).toBeCloseTo(f(tokens), 6);
    // Text values have no number: a numeric metric over them has no value.
    expect(await measure("AVG", attr("route"))).toEqual({ spans: 40, value: null });
  });

  it("COUNT, PERCENT_EMPTY and CARDINALITY take any value", async () => {
    const routes = seeded.map((s) => s.route);
    expect((await measure("COUNT", attr("route"))).value).toBe(
      routes.filter((r) => r !== null).length,
    );
    expect((await measure("COUNT", attr("status_code"))).value).toBe(40);
    expect((await measure("PERCENT_EMPTY", attr("route"))).value).toBeCloseTo(
      (100 * routes.filter((r) => r === null).length) / 40,
      9,
    );
    expect((await measure("CARDINALITY", attr("route"))).value).toBe(3);
    expect((await measure("CARDINALITY", attr("status_code"))).value).toBe(2);
  });

  it("LLM_EVAL: numeric metrics over the score, the others over the label", async () => {
    const scores = seeded.flatMap((s) => (s.score === null ? [] : [s.score]));
    const d: MonitorDimension = { category: "LLM_EVAL", name: "correctness" };
    expect((await measure("AVG", d)).value).toBeCloseTo(mean(scores), 9);
    expect((await measure("P50", d)).value).toBeCloseTo(percentile(scores, 0.5), 9);
    expect((await measure("COUNT", d)).value).toBe(scores.length);
    expect((await measure("CARDINALITY", d)).value).toBe(2);
    expect((await measure("PERCENT_EMPTY", d)).value).toBeCloseTo(
      (100 * (40 - scores.length)) / 40,
      9,
    );
    expect(await measure("AVG", { category: "LLM_EVAL", name: "no-such-eval" })).toEqual({
      spans: 40,
      value: null,
    });
  });

  it("USER_ANNOTATION: the span's annotation, or on a root span its trace's", async () => {
    const scores = seeded.flatMap((s) => (s.score === null ? [] : [s.score]));
    const d: MonitorDimension = { category: "USER_ANNOTATION", name: "quality" };
    expect((await measure("SUM", d)).value).toBeCloseTo(
      scores.reduce((a, b) => a + b, 0),
      9,
    );
    expect((await measure("COUNT", d)).value).toBe(scores.length);
  });

  it("filters narrow the spans a metric takes; every operator", async () => {
    const latencies = (pick: (s: Seeded) => boolean) => seeded.filter(pick).map((s) => s.latency);
    const f = (
      dimension: MonitorDimension,
      operator: MonitorFilter["operator"],
      values: string[],
    ) => [{ dimension, operator, values }];
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const cases: [string, MonitorFilter[], number[]][] = [
      ["EQUALS", f(attr("status_code"), "EQUALS", ["ERROR"]), latencies((s) => s.error)],
      ["NOT_EQUALS", f(attr("route"), "NOT_EQUALS", ["/a"]), latencies((s) => s.route !== "/a")],
      [
        "EQUALS any",
        f(attr("route"), "EQUALS", ["/a", "/b"]),
        latencies((s) => s.route === "/a" || s.route === "/b"),
      ],
      [
        "GREATER_THAN",
        f(attr("llm.token_count.total"), "GREATER_THAN", ["120"]),
        latencies((s) => (s.tokens ?? 0) > 120),
      ],
      [
        "GREATER_THAN_OR_EQUAL",
        f(attr("latency_ms"), "GREATER_THAN_OR_EQUAL", ["200"]),
        latencies((s) => s.latency >= 200),
      ],
      ["LESS_THAN", f(attr("latency_ms"), "LESS_THAN", ["200"]), latencies((s) => s.latency < 200)],
      [
        "LESS_THAN_OR_EQUAL",
        f({ category: "LLM_EVAL", name: "correctness" }, "LESS_THAN_OR_EQUAL", ["0.5"]),
        latencies((s) => s.score !== null && s.score <= 0.5),
      ],
      ["CONTAINS list", f(attr("tags"), "CONTAINS", ["y"]), latencies((s) => s.tags.includes("y"))],
      [
        "CONTAINS_STRING",
        f(attr("route"), "CONTAINS_STRING", ["b"]),
        latencies((s) => s.route === "/b"),
      ],
      [
        "label EQUALS",
        f({ category: "USER_ANNOTATION", name: "quality" }, "EQUALS", ["good"]),
        latencies((s) => s.label === "good"),
      ],
    ];
    for (const [name, filters, want] of cases) {
      const got = await measure("SUM", attr("latency_ms"), filters);
      expect([name, got.spans], name).toEqual([name, 40]);
      expect(got.value ?? 0, name).toBeCloseTo(sum(want), 6);
    }
    // Two filters: both hold.
    const both = await measure("COUNT", attr("status_code"), [
      ...f(attr("route"), "EQUALS", ["/b"]),
      ...f(attr("latency_ms"), "GREATER_THAN", ["100"]),
    ]);
    expect(both.value).toBe(seeded.filter((s) => s.route === "/b" && s.latency > 100).length);
  });

  it("an empty window has no spans and no value; a series has one point per interval", async () => {
    const empty = {
      start: new Date(WINDOW.start.getTime() - 3_600_000),
      end: new Date(WINDOW.start.getTime() - 1_800_000),
    };
    expect(
      await measureWindow(
        t.pool,
        { metric: "COUNT", dimension: attr("status_code"), filters: [] },
        projectId,
        empty,
      ),
    ).toEqual({
      spans: 0,
      value: 0,
    });
    const points = await measureSeries(
      t.pool,
      { metric: "COUNT", dimension: attr("status_code"), filters: [] },
      projectId,
      WINDOW.start,
      100,
      6,
    );
    // A span every 10 s: ten per 100 s interval.
    expect(points.map((p) => p.value)).toEqual([10, 10, 10, 10, null, null]);
  });
});

describe("monitors through the service", () => {
  const fields = (over: Partial<MonitorFields> = {}): MonitorFields =>
    latencyMonitor("monitor", 100, { windowSeconds: 3600, manualEvaluationEnabled: true, ...over });

  it("is created NO_DATA, evaluated now (TRIGGERED, one event), and its history kept", async () => {
    const m = await t.call(M.createMonitor, { projectId, fields: fields() });
    expect(m).toMatchObject({
      status: "NO_DATA",
      type: "TRACING",
      evaluatedAt: "",
      windowSeconds: 3600,
    });
    const e = await t.call(M.evaluateMonitor, { id: m.id });
    expect(e).toMatchObject({ status: "TRIGGERED", previousStatus: "NO_DATA", trigger: "MANUAL" });
    expect(e.value).toBeGreaterThan(100);
    const again = await t.call(M.evaluateMonitor, { id: m.id });
    expect(again).toMatchObject({ status: "TRIGGERED", previousStatus: "TRIGGERED" });
    const read = await t.call(M.getMonitor, { id: m.id });
    expect(read).toMatchObject({ status: "TRIGGERED", latestComputedValue: again.value });
    expect(read.evaluatedAt).toBe(again.evaluatedAt);
    const history = await t.call(M.listMonitorEvaluations, {
      id: m.id,
      page: { limit: 1, after: "" },
    });
    expect(history.evaluations.map((x) => x.id)).toEqual([again.id]);
    const rest = await t.call(M.listMonitorEvaluations, {
      id: m.id,
      page: { limit: 10, after: history.page!.nextAfter },
    });
    expect(rest.evaluations.map((x) => x.id)).toEqual([e.id]);
    const events = await t.pool.query(
      "select event_type from events where stream_id = $1 order by stream_version",
      [`monitor-${m.id}`],
    );
    expect(events.rows.map((r) => r.event_type)).toEqual([
      "MonitorCreated",
      "MonitorStatusChanged",
    ]);
  });

  it("evaluations racing on one monitor append its change of status once", async () => {
    const m = await t.call(M.createMonitor, { projectId, fields: fields() });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.call(M.evaluateMonitor, { id: m.id })),
    );
    expect(results.every((r) => r.status === "TRIGGERED")).toBe(true);
    const events = await t.pool.query(
      "select count(*)::int as n from events where stream_id = $1 and event_type = 'MonitorStatusChanged'",
      [`monitor-${m.id}`],
    );
    expect(events.rows[0].n).toBe(1);
    // Every evaluation that was recorded says whether it changed the status: one of them did.
    const changed = await t.pool.query(
      "select count(*)::int as n from monitor_evaluations where monitor_id = $1 and previous_status = 'NO_DATA'",
      [m.id],
    );
    expect(changed.rows[0].n).toBe(1);
  });

  it("refuses bad input with clear problems", async () => {
    const create = async (over: Partial<MonitorFields>, id = projectId) =>
      problemWith(t.call(M.createMonitor, { projectId: id, fields: fields(over) }));
    expect(await create({}, "0190a000-0000-7000-8000-000000000099")).toEqual({
      type: "resource-not-found",
      detail: "project not found",
    });
    expect((await create({ type: "DRIFT" })).detail).toMatch(/Argus has no ML models/);
    expect((await create({ dimension: { category: "PREDICTIONS", name: "p" } })).detail).toMatch(
      /PREDICTIONS is not allowed for TRACING monitors/,
    );
    expect(
      (
        await create({
          threshold: {
            type: "MANUAL_RANGE",
            operator: "",
            value: 0,
            multiplier: 0,
            calculation: "",
            lower: { operator: "GREATER_THAN", value: 10, multiplier: 0 },
            upper: { operator: "LESS_THAN", value: 5, multiplier: 0 },
          },
        })
      ).detail,
    ).toBe("threshold.lower.value (10) must not be above threshold.upper.value (5)");
    expect((await create({ windowSeconds: 0 })).detail).toMatch(/evaluation_window_length_seconds/);
    // Without a webhook dispatcher, a webhook channel names no webhook.
    expect(
      await create({
        channels: {
          items: [
            {
              type: "WEBHOOK",
              webhookId: "0190a000-0000-7000-8000-000000000099",
              emailAddress: "",
              integrationId: "",
              url: "",
            },
          ],
        },
      }),
    ).toEqual({
      type: "validation-error",
      detail:
        "notification_configs[0].id names no webhook (it does not exist, or you may not read it)",
    });
  });

  it("an annotator does not see it (nor list any); READ_ONLY reads but cannot trigger", async () => {
    const m = await t.call(M.createMonitor, { projectId, fields: fields() });
    const stranger = t.member({}, { accountRole: AccountRole.ACCOUNT_ROLE_ANNOTATOR });
    expect((await problemWith(t.call(M.getMonitor, { id: m.id }, stranger))).type).toBe(
      "resource-not-found",
    );
    expect((await problemWith(t.call(M.listMonitors, NO_FILTERS, stranger))).type).toBe(
      "access-forbidden",
    );
    const reader = t.member({ [t.spaceId]: "READ_ONLY" });
    expect((await t.call(M.getMonitor, { id: m.id }, reader)).id).toBe(m.id);
    expect((await problemWith(t.call(M.evaluateMonitor, { id: m.id }, reader))).type).toBe(
      "access-forbidden",
    );
  });

  it("lists with the public API's filters, newest first, keyset paged", async () => {
    const name = uniqueName("listed");
    const a = await t.call(M.createMonitor, {
      projectId,
      fields: fields({
        name: `${name}-a`,
        metric: "COUNT",
        dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" },
      }),
    });
    const b = await t.call(M.createMonitor, {
      projectId,
      fields: fields({ name: `${name}-b`, notificationsEnabled: false }),
    });
    const list = (over: Record<string, unknown> = {}) =>
      t.call(M.listMonitors, {
        ...NO_FILTERS,
        page: { limit: 50, after: "" },
        name,
        ...over,
      });
    expect((await list()).monitors.map((m) => m.id)).toEqual([b.id, a.id]);
    expect((await list({ dataQualityMetric: "COUNT" })).monitors.map((m) => m.id)).toEqual([a.id]);
    expect((await list({ dimensionName: "latency_ms" })).monitors.map((m) => m.id)).toEqual([b.id]);
    expect((await list({ notificationsEnabled: false })).monitors.map((m) => m.id)).toEqual([b.id]);
    expect((await list({ type: "DRIFT" })).monitors).toEqual([]);
    expect((await list({ performanceMetric: "ACCURACY" })).monitors).toEqual([]);
    expect((await list({ projectId })).monitors).toHaveLength(2);
    const page = await list({ page: { limit: 1, after: "" } });
    expect(page.monitors.map((m) => m.id)).toEqual([b.id]);
    expect(
      (await list({ page: { limit: 1, after: page.page!.nextAfter } })).monitors.map((m) => m.id),
    ).toEqual([a.id]);
    expect(
      (await problemWith(list({ customMetricId: "0190a000-0000-7000-8000-000000000099" }))).type,
    ).toBe("resource-not-found");
    expect(
      (await problemWith(list({ projectId: "0190a000-0000-7000-8000-000000000099" }))).type,
    ).toBe("resource-not-found");
  });
});

describe("cascades of other services' deletions", () => {
  it("a deleted space takes its dashboards and monitors; a deleted project its monitors and widgets", async () => {
    const space = await t.createSpace();
    const project = uniqueName("cascaded");
    await exportRaw(t, project, [{ traceId: newTraceId(), spanId: newSpanId() }], {
      spaceId: space,
    });
    const doomedProject = await projectIdOf(t, project, space);
    const monitor = await t.call(M.createMonitor, {
      projectId: doomedProject,
      fields: {
        name: "cascaded",
        type: "TRACING",
        metric: "COUNT",
        dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" },
        threshold: {
          type: "MANUAL_SINGLE",
          operator: "GREATER_THAN",
          value: 0,
          multiplier: 0,
          calculation: "",
        },
        manualEvaluationEnabled: true,
        clearNotes: false,
        clearDowntime: false,
        clearSchedule: false,
      },
    });
    const dashboard = await t.call(D.createDashboard, {
      spaceId: space,
      name: "doomed",
      description: "",
    });
    const widget = await t.call(D.createWidget, {
      dashboardId: dashboard.id,
      widget: {
        id: "",
        dashboardId: "",
        type: "LINE_CHART",
        title: "",
        gridPosition: [],
        creationStatus: "",
        createdAt: "",
        creatorUserId: "",
        widgetType: "MONITOR",
        plots: [],
        monitorId: monitor.id,
        displayJson: "{}",
      },
    });
    expect(widget.monitorId).toBe(monitor.id);
    await t.callOn(t.identity, IdentityServiceService.deleteSpace, { id: space });
    const gone = async () =>
      (await problemWith(t.call(D.getDashboard, { id: dashboard.id }))).type ===
        "resource-not-found" &&
      (await problemWith(t.call(M.getMonitor, { id: monitor.id }))).type === "resource-not-found";
    const deadline = Date.now() + 20_000;
    while (!(await gone())) {
      if (Date.now() > deadline)
        throw new Error("the deleted space's dashboard or monitor is still there");
      await new Promise((r) => setTimeout(r, 100));
    }
    // The monitor's deletion is an event with the cascade's metadata: the space's, or its
    // project's (the catalog deletes the space's projects too), whichever came first.
    const deleted = await t.pool.query(
      "select metadata from events where stream_id = $1 and event_type = 'MonitorDeleted'",
      [`monitor-${monitor.id}`],
    );
    expect(deleted.rows).toHaveLength(1);
    expect(deleted.rows[0].metadata).toMatchObject({ actor: "system:cascade" });
    expect(["SpaceDeleted", "ProjectDeleted"]).toContain(deleted.rows[0].metadata.cause_event_type);
  });
});
