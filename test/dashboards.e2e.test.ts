/**
 * Dashboards end to end (issue 30): a space's dashboard with LINE_CHART (span metrics, and a
 * monitor's metric and threshold), STATISTIC and TEXT widgets over spans ingested over OTLP;
 * the public widget read as the SDK calls it; the numbers a widget draws over a time range;
 * what a widget draws going away; clear Problems and the widget limit at its edges.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@argus/contracts";
import { latencyMonitor, sendTimedSpans } from "./monitors-support.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

let api: Api;
let spaceId: string;
let projectId: string;
let n = 0;
const unique = (what: string) => `${what}-${Date.now()}-${n++}`;
const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

// Spans in three whole minutes well in the past: 2, 4 and 6 spans of 100, 200 and 300 ms.
const MINUTE = 60_000;
const start = Math.floor((Date.now() - 30 * MINUTE) / MINUTE) * MINUTE;

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const spans = [0, 1, 2].flatMap((minute) =>
    Array.from({ length: 2 * (minute + 1) }, (_, i) => ({
      startMs: start + minute * MINUTE + i * 1000,
      durationMs: 100 * (minute + 1),
      attributes: { route: minute === 2 ? "/slow" : "/fast" },
    })),
  );
  projectId = await sendTimedSpans(api, spaceId, unique("charted"), spans);
}, 300_000);
afterAll(async () => {
  await api?.stop();
});

const plot = (over: Json = {}) => ({
  model_id: projectId,
  metric: "COUNT",
  dimension_category: "SPAN_ATTRIBUTE",
  dimension_name: "status_code",
  ...over,
});
const range = `start_time=${new Date(start).toISOString()}&end_time=${new Date(start + 4 * MINUTE).toISOString()}&granularity_seconds=60`;

describe("a dashboard of tracing metrics", () => {
  let dashboard: Json;
  beforeAll(async () => {
    dashboard = await asAdmin("POST", "/v2/dashboards", { space_id: spaceId, name: unique("ops") });
  });
  const widgets = () => `/v2/dashboards/${dashboard.id}/widgets`;

  it("a LINE_CHART draws each plot per interval; the public read answers the SDK's shape", async () => {
    const w = await asAdmin("POST", widgets(), {
      type: "LINE_CHART",
      title: "traffic and latency",
      grid_position: [0, 0, 6, 4],
      plots: [
        plot({ id: "count", title: "spans" }),
        plot({
          id: "p95",
          metric: "P95",
          dimension_name: "latency_ms",
          filters: [
            {
              filter_type: "SPAN_ATTRIBUTE",
              dimension_name: "route",
              operator: "EQUALS",
              dimension_values: ["/fast"],
            },
          ],
        }),
      ],
      y_min: 0,
      y_axis_label: "spans",
      timezone: "UTC",
    });
    expect(w).toMatchObject({
      type: "LINE_CHART",
      dashboard_id: dashboard.id,
      title: "traffic and latency",
      creation_status: "PUBLISHED",
      widget_type: "LINE",
      y_min: 0,
      y_axis_label: "spans",
      timezone: "UTC",
      plots: [
        { id: "count", model_id: projectId, metric: "COUNT", dimension_category: "SPAN_ATTRIBUTE" },
        {
          id: "p95",
          filters: [
            {
              filter_type: "SPAN_ATTRIBUTE",
              dimension_name: "route",
              operator: "EQUALS",
              dimension_values: ["/fast"],
            },
          ],
        },
      ],
    });
    expect(await asAdmin("GET", `${widgets()}/${w.id}`)).toEqual(w);
    const data = await asAdmin("GET", `${widgets()}/${w.id}/data?${range}`);
    expect(data).toMatchObject({ widget_id: w.id, granularity_seconds: 60 });
    const values = (id: string) =>
      (data.series as Json[])
        .find((s) => s.plot_id === id)!
        .points.map((p: Json) => p.value ?? null);
    expect(values("count")).toEqual([2, 4, 6, null]);
    expect(values("p95")).toEqual([100, 200, null, null]);
  });

  it("a STATISTIC is its metric over the whole range; TEXT has no data", async () => {
    const stat = await asAdmin("POST", widgets(), {
      type: "STATISTIC",
      title: "average latency",
      model_id: projectId,
      aggregation: "AVG",
      dimension_category: "SPAN_ATTRIBUTE",
      dimension_name: "latency_ms",
      custom_statistic_text: "ms",
    });
    expect(stat).toMatchObject({
      type: "STATISTIC",
      aggregation: "AVG",
      model_id: projectId,
      filters: [],
    });
    const data = await asAdmin("GET", `${widgets()}/${stat.id}/data?${range}`);
    // (2×100 + 4×200 + 6×300) / 12
    expect(data.value).toBeCloseTo(2800 / 12, 6);
    const text = await asAdmin("POST", widgets(), {
      type: "TEXT",
      title: "runbook",
      content: "Page the on-call.",
    });
    expect(await asAdmin("GET", `${widgets()}/${text.id}`)).toMatchObject({
      type: "TEXT",
      content: "Page the on-call.",
    });
    expect((await asAdmin("GET", `${widgets()}/${text.id}/data`)).series).toEqual([]);
    const replaced = await asAdmin("PATCH", `${widgets()}/${text.id}`, {
      type: "TEXT",
      content: "Call Ana.",
    });
    expect(replaced.content).toBe("Call Ana.");
    expectProblem(
      await api.req("PATCH", `${widgets()}/${text.id}`, {
        body: { type: "STATISTIC", model_id: projectId },
      }),
      422,
      "validation-error",
    );
  });

  it("a MONITOR chart draws its monitor's metric and threshold, and goes with the monitor", async () => {
    const m = await asAdmin("POST", "/v2/monitors", latencyMonitor(projectId, unique("charted")));
    const w = await asAdmin("POST", widgets(), {
      type: "LINE_CHART",
      widget_type: "MONITOR",
      monitor_id: m.id,
    });
    expect(w).toMatchObject({ widget_type: "MONITOR", monitor_id: m.id, plots: [] });
    const data = await asAdmin("GET", `${widgets()}/${w.id}/data?${range}`);
    expect(data.threshold).toEqual({ single: { operator: "GREATER_THAN", value: 300 } });
    expect(data.series[0].points.map((p: Json) => p.value ?? null)).toEqual([100, 200, 300, null]);
    await asAdmin("DELETE", `/v2/monitors/${m.id}`);
    expectProblem(await api.req("GET", `${widgets()}/${w.id}`), 404, "resource-not-found");
  });

  it("the dashboard lists its widgets in grid order; lists and renames", async () => {
    const got = await asAdmin("GET", `/v2/dashboards/${dashboard.id}`);
    expect(got.widgets.length).toBeGreaterThanOrEqual(3);
    const listed = await asAdmin(
      "GET",
      `/v2/dashboards?space_id=${encodeURIComponent(spaceId)}&name=${dashboard.name}`,
    );
    expect(listed.dashboards.map((d: Json) => [d.id, d.widgets])).toEqual([[dashboard.id, []]]);
    expect(
      (await asAdmin("PATCH", `/v2/dashboards/${dashboard.id}`, { name: "renamed" })).name,
    ).toBe("renamed");
  });

  it("bad widgets and ranges get clear Problems", async () => {
    const post = (body: Json) => api.req("POST", widgets(), { body });
    const bar = await post({ type: "BAR_CHART" });
    expectProblem(bar, 422, "validation-error");
    expect(bar.body.detail).toMatch(/BAR_CHART are not supported/);
    expectProblem(await post({ type: "TEXT" }), 422, "validation-error");
    const other = (
      await asAdmin("POST", "/v2/spaces", {
        organization_id: (await api.req("GET", "/v2/organizations")).body.organizations[0].id,
        name: unique("other"),
      })
    ).id;
    const elsewhere = await sendTimedSpans(api, other, unique("elsewhere"), [
      { startMs: start, durationMs: 1 },
    ]);
    const foreign = await post({ type: "LINE_CHART", plots: [plot({ model_id: elsewhere })] });
    expectProblem(foreign, 422, "validation-error");
    expect(foreign.body.detail).toBe(
      "plots[0].model_id names a project of another space than the dashboard's",
    );
    const ghost = Buffer.from("Monitor:0190a000-0000-7000-8000-000000000001").toString("base64");
    const noMonitor = await post({ type: "LINE_CHART", widget_type: "MONITOR", monitor_id: ghost });
    expectProblem(noMonitor, 422, "validation-error");
    expect(noMonitor.body.detail).toBe("monitor_id names no monitor you may read");
    const badDim = await post({
      type: "LINE_CHART",
      plots: [plot({ dimension_category: "PREDICTIONS" })],
    });
    expect(badDim.body.detail).toMatch(/plots\[0\]\.dimension_category PREDICTIONS is not allowed/);
    const plots = (k: number) =>
      post({
        type: "LINE_CHART",
        plots: Array.from({ length: k }, (_, i) => plot({ id: `p${i}` })),
      });
    expect((await plots(0)).status).toBe(422);
    expect((await plots(LIMITS.WIDGET_PLOTS_MAX)).status).toBe(201);
    expect((await plots(LIMITS.WIDGET_PLOTS_MAX + 1)).status).toBe(422);

    const text = await asAdmin("POST", widgets(), { type: "TEXT", content: "x" });
    const data = (q: string) => api.req("GET", `${widgets()}/${text.id}/data?${q}`);
    expectProblem(
      await data(
        "granularity_seconds=1&start_time=2026-01-01T00:00:00Z&end_time=2026-01-02T00:00:00Z",
      ),
      422,
      "validation-error",
    );
    expectProblem(
      await data("start_time=2026-01-02T00:00:00Z&end_time=2026-01-01T00:00:00Z"),
      400,
      "invalid-request",
    );
    // A widget of another dashboard is not this one's.
    const elsewhereBoard = await asAdmin("POST", "/v2/dashboards", {
      space_id: spaceId,
      name: unique("b"),
    });
    expectProblem(
      await api.req("GET", `/v2/dashboards/${elsewhereBoard.id}/widgets/${text.id}`),
      404,
      "resource-not-found",
    );
  });

  it("widgets per dashboard: max, then max+1 is refused", async () => {
    const board = await asAdmin("POST", "/v2/dashboards", {
      space_id: spaceId,
      name: unique("full"),
    });
    for (let i = 0; i < LIMITS.WIDGETS_PER_DASHBOARD_MAX; i++)
      await asAdmin("POST", `/v2/dashboards/${board.id}/widgets`, {
        type: "TEXT",
        content: `${i}`,
      });
    const over = await api.req("POST", `/v2/dashboards/${board.id}/widgets`, {
      body: { type: "TEXT", content: "x" },
    });
    expectProblem(over, 422, "validation-error");
    expect(over.body.detail).toBe(
      `a dashboard holds at most ${LIMITS.WIDGETS_PER_DASHBOARD_MAX} widgets`,
    );
  });

  it("a deleted project takes the widgets charting it; a deleted dashboard its widgets", async () => {
    const doomed = await sendTimedSpans(api, spaceId, unique("doomed"), [
      { startMs: start, durationMs: 1 },
    ]);
    const w = await asAdmin("POST", widgets(), {
      type: "LINE_CHART",
      plots: [plot({ model_id: doomed })],
    });
    await asAdmin("DELETE", `/v2/projects/${doomed}`);
    const deadline = Date.now() + 15_000;
    while ((await api.req("GET", `${widgets()}/${w.id}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error("the widget of a deleted project is still there");
      await new Promise((r) => setTimeout(r, 100));
    }
    await asAdmin("DELETE", `/v2/dashboards/${dashboard.id}`);
    expectProblem(
      await api.req("GET", `/v2/dashboards/${dashboard.id}`),
      404,
      "resource-not-found",
    );
  });
});
