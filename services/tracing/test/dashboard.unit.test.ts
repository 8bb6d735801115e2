import { describe, expect, it } from "vitest";
import {
  LIMITS,
  type DashboardEvent,
  type WidgetPlotSpec,
  type WidgetSpec,
} from "@argus/contracts";
import { problem, problemDetail, scenario } from "@argus/eventstore/testing";
import { dashboardDecider, type DashboardCommand } from "../src/dashboards/dashboardDecider.ts";
import { seriesRange } from "../src/dashboards/dashboardRules.ts";

const now = new Date("2026-03-04T10:00:00.000Z");
const PROJECT = "0190a000-0000-7000-8000-000000000001";
const MONITOR = "0190a000-0000-7000-8000-000000000002";

const plot = (i = 0): WidgetPlotSpec => ({
  id: `plot-${i}`,
  position: i,
  title: null,
  project_id: PROJECT,
  metric: "P95",
  dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
  filters: [],
});
const widget = (over: Partial<WidgetSpec> = {}): WidgetSpec => ({
  type: "LINE_CHART",
  title: "latency",
  grid_position: [0, 0, 6, 4],
  creation_status: "PUBLISHED",
  widget_type: "LINE",
  plots: [plot()],
  monitor_id: null,
  statistic: null,
  custom_statistic_text: null,
  content: null,
  display: { y_min: 0 },
  ...over,
});
const text = (content: string | null): WidgetSpec =>
  widget({ type: "TEXT", widget_type: null, plots: [], content, display: {} });
const create: DashboardCommand = {
  type: "CreateDashboard",
  id: "d1",
  accountId: "a1",
  spaceId: "s1",
  name: "ops",
  description: "",
  userId: "u1",
  now,
};
const add = (spec: WidgetSpec, widgetId = "w1"): DashboardCommand => ({
  type: "AddWidget",
  widgetId,
  spec,
  userId: "u1",
  now,
});

const { given, history } = scenario(dashboardDecider);
const created = history(create);
const withWidgets = (n: number): DashboardEvent[] =>
  history(create, ...Array.from({ length: n }, (_, i) => add(text("x"), `w${i}`)));

describe("dashboard decider", () => {
  it("creates, renames and deletes a dashboard; its name is 1 to max characters", () => {
    expect(given([]).when(create)[0]).toMatchObject({
      type: "DashboardCreated",
      data: { name: "ops" },
    });
    expect(problem(() => given([]).when({ ...create, name: " " }))).toBe("validation-error");
    expect(
      problem(() =>
        given([]).when({
          ...create,
          name: "n".repeat(LIMITS.DASHBOARD_NAME_MAX),
        }),
      ),
    ).toBe("none");
    expect(
      problem(() =>
        given([]).when({
          ...create,
          name: "n".repeat(LIMITS.DASHBOARD_NAME_MAX + 1),
        }),
      ),
    ).toBe("validation-error");
    expect(given(created).when({ type: "UpdateDashboard", name: "new", now })[0]).toMatchObject({
      data: { name: "new", description: "" },
    });
    const gone = [...created, ...given(created).when({ type: "DeleteDashboard", now })];
    expect(problem(() => given(gone).when(add(text("x"))))).toBe("resource-not-found");
  });

  it("widgets: 0, 1, max, then max+1 is refused", () => {
    expect(given(withWidgets(0)).when(add(text("x"), "new"))).toHaveLength(1);
    expect(given(withWidgets(1)).when(add(text("x"), "new"))).toHaveLength(1);
    expect(
      given(withWidgets(LIMITS.WIDGETS_PER_DASHBOARD_MAX - 1)).when(add(text("x"), "new")),
    ).toHaveLength(1);
    expect(
      problemDetail(() =>
        given(withWidgets(LIMITS.WIDGETS_PER_DASHBOARD_MAX)).when(add(text("x"), "new")),
      ),
    ).toBe(
      `validation-error: a dashboard holds at most ${LIMITS.WIDGETS_PER_DASHBOARD_MAX} widgets`,
    );
  });

  it("a widget's type is fixed; a removed widget is gone", () => {
    const one = history(create, add(widget()));
    expect(
      problemDetail(() =>
        given(one).when({ type: "ChangeWidget", widgetId: "w1", spec: text("x"), now }),
      ),
    ).toBe("validation-error: a widget's type is fixed: this one is a LINE_CHART");
    expect(
      given(one).when({ type: "ChangeWidget", widgetId: "w1", spec: widget({ title: "t" }), now }),
    ).toHaveLength(1);
    const removed = [...one, ...given(one).when({ type: "RemoveWidget", widgetId: "w1", now })];
    expect(problem(() => given(removed).when({ type: "RemoveWidget", widgetId: "w1", now }))).toBe(
      "resource-not-found",
    );
    expect(
      given(removed).when({ type: "RemoveWidget", widgetId: "w1", now, ifPresent: true }),
    ).toEqual([]);
  });

  it("TEXT content: 0 (absent) refused, 1, max, max+1", () => {
    const w = (content: string | null) => problem(() => given(created).when(add(text(content))));
    expect(w(null)).toBe("validation-error");
    expect(w("x")).toBe("none");
    expect(w("x".repeat(LIMITS.WIDGET_TEXT_MAX))).toBe("none");
    expect(w("x".repeat(LIMITS.WIDGET_TEXT_MAX + 1))).toBe("validation-error");
  });

  it("LINE_CHART plots: 0, 1, max, max+1; MONITOR mode needs a monitor and no plots", () => {
    const plots = (n: number) =>
      problem(() =>
        given(created).when(add(widget({ plots: Array.from({ length: n }, (_, i) => plot(i)) }))),
      );
    expect(plots(0)).toBe("validation-error");
    expect(plots(1)).toBe("none");
    expect(plots(LIMITS.WIDGET_PLOTS_MAX)).toBe("none");
    expect(plots(LIMITS.WIDGET_PLOTS_MAX + 1)).toBe("validation-error");
    expect(
      problem(() =>
        given(created).when(
          add(widget({ widget_type: "MONITOR", plots: [], monitor_id: MONITOR })),
        ),
      ),
    ).toBe("none");
    expect(
      problem(() =>
        given(created).when(add(widget({ widget_type: "MONITOR", monitor_id: null, plots: [] }))),
      ),
    ).toBe("validation-error");
  });

  it("the widget types Argus does not draw are refused with a clear 422", () => {
    expect(
      problemDetail(() => given(created).when(add(widget({ type: "BAR_CHART" as never })))),
    ).toBe(
      "validation-error: widgets of type BAR_CHART are not supported: Argus draws LINE_CHART, STATISTIC, TEXT",
    );
  });

  it("a plot's metric and dimension follow the monitors' rules", () => {
    const bad = { ...plot(), dimension: { category: "TAG" as never, name: "x" } };
    expect(problemDetail(() => given(created).when(add(widget({ plots: [bad] }))))).toMatch(
      /plots\[0\]\.dimension_category TAG is not allowed for TRACING monitors/,
    );
  });
});

describe("widget data ranges", () => {
  const start = new Date("2026-03-04T00:00:00.000Z");
  const hours = (h: number) => new Date(start.getTime() + h * 3_600_000);
  it("defaults to 60 points of at least a minute; at most WIDGET_POINTS_MAX points", () => {
    expect(seriesRange(start, hours(24), 0)).toMatchObject({ width: 1440, count: 60 });
    expect(seriesRange(start, hours(0.5), 0)).toMatchObject({ width: 60, count: 30 });
    expect(seriesRange(start, hours(1), 3600 / LIMITS.WIDGET_POINTS_MAX).count).toBe(
      LIMITS.WIDGET_POINTS_MAX,
    );
    expect(problem(() => seriesRange(start, hours(1), 3))).toBe("validation-error");
    expect(problem(() => seriesRange(start, start, 60))).toBe("invalid-request");
  });
});
