import { encodeId } from "@argus/platform";
import type { Monitor } from "@argus/proto/tracing/v1/monitors";
import type { Widget } from "@argus/proto/tracing/v1/dashboards";
import { describe, expect, it } from "vitest";
import { dashboardHandlers } from "../src/routes/dashboards.ts";
import { monitorHandlers } from "../src/routes/monitors.ts";
import { routesOnRecording } from "./recordingBackend.ts";

const PROJECT = "0192f4a0-0000-7000-8000-000000000001";
const MONITOR = "0192f4a0-0000-7000-8000-000000000002";
const WEBHOOK = "0192f4a0-0000-7000-8000-000000000003";
const DASHBOARD = "0192f4a0-0000-7000-8000-000000000004";
const WIDGET = "0192f4a0-0000-7000-8000-000000000005";
const at = "2026-01-02T03:04:05.000Z";

const { calls, answers, call } = routesOnRecording((fake) => ({
  ...monitorHandlers(fake),
  ...dashboardHandlers(fake),
}));

const monitor = (over: Partial<Monitor> = {}): Monitor => ({
  id: MONITOR,
  projectId: PROJECT,
  spaceId: "0192f4a0-0000-7000-8000-0000000000ff",
  name: "slow",
  type: "TRACING",
  status: "NO_DATA",
  threshold: {
    type: "MANUAL_RANGE",
    operator: "",
    value: 0,
    multiplier: 0,
    calculation: "",
    lower: { operator: "GREATER_THAN", value: 1, multiplier: 0 },
    upper: { operator: "LESS_THAN", value: 5, multiplier: 0 },
  },
  notificationsEnabled: true,
  manualEvaluationEnabled: false,
  createdByUserId: "",
  filters: [],
  channels: [],
  createdAt: at,
  updatedAt: at,
  windowSeconds: 3600,
  delaySeconds: 0,
  evaluatedAt: "",
  metric: "P95",
  dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
  ...over,
});

describe("monitor routes", () => {
  it("a create's body becomes the service's fields: ids decoded, defaults left to the service", async () => {
    answers.CreateMonitor = () => monitor();
    const res = await call("POST", "/v2/monitors", {
      name: "slow",
      type: "TRACING",
      project_id: encodeId("Project", PROJECT),
      metric: "P95",
      dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
      threshold: {
        type: "DYNAMIC_SINGLE",
        calculation: "MAD",
        operator: "GREATER_THAN",
        multiplier: 2,
      },
      notification_configs: [
        { type: "WEBHOOK", id: encodeId("Webhook", WEBHOOK) },
        { type: "WEBHOOK", id: "bm90IGEgd2ViaG9vaw==" },
      ],
    });
    expect(res.status).toBe(201);
    const request = calls[0]!.request as { projectId: string; fields: Record<string, unknown> };
    expect(request.projectId).toBe(PROJECT);
    expect(request.fields).toEqual({
      name: "slow",
      clearNotes: false,
      type: "TRACING",
      metric: "P95",
      dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
      threshold: {
        type: "DYNAMIC_SINGLE",
        operator: "GREATER_THAN",
        value: 0,
        multiplier: 2,
        calculation: "MAD",
      },
      channels: {
        items: [
          { type: "WEBHOOK", webhookId: WEBHOOK, emailAddress: "", integrationId: "", url: "" },
          // Not a webhook's id: the service answers it as naming none (422).
          { type: "WEBHOOK", webhookId: "", emailAddress: "", integrationId: "", url: "" },
        ],
      },
      clearDowntime: false,
      clearSchedule: false,
    });
  });

  it("an update's nulls clear notes, downtime and schedule", async () => {
    answers.UpdateMonitor = () => monitor();
    await call("PATCH", `/v2/monitors/${encodeId("Monitor", MONITOR)}`, {
      notes: null,
      downtime: null,
      scheduled_runtime: null,
    });
    expect(calls[0]!.request).toMatchObject({
      id: MONITOR,
      fields: { clearNotes: true, clearDowntime: true, clearSchedule: true },
    });
  });

  it("answers the public shape: public ids, what is unset omitted", async () => {
    answers.GetMonitor = () =>
      monitor({
        channels: [
          {
            type: "WEBHOOK",
            webhookId: WEBHOOK,
            url: "https://h",
            emailAddress: "",
            integrationId: "",
          },
        ],
        latestComputedValue: 0,
        evaluatedAt: at,
      });
    const res = await call("GET", `/v2/monitors/${encodeId("Monitor", MONITOR)}`);
    expect(res.json).toEqual({
      id: encodeId("Monitor", MONITOR),
      name: "slow",
      type: "TRACING",
      project_id: encodeId("Project", PROJECT),
      status: "NO_DATA",
      threshold: {
        type: "MANUAL_RANGE",
        lower: { operator: "GREATER_THAN", value: 1 },
        upper: { operator: "LESS_THAN", value: 5 },
      },
      notifications_enabled: true,
      manual_evaluation_enabled: false,
      notification_configs: [
        { type: "WEBHOOK", id: encodeId("Webhook", WEBHOOK), url: "https://h" },
      ],
      created_at: at,
      updated_at: at,
      evaluation_window_length_seconds: 3600,
      delay_seconds: 0,
      evaluated_at: at,
      latest_computed_value: 0,
      metric: "P95",
      dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
    });
  });

  it("the list's ids: malformed is 400 before the service is asked", async () => {
    for (const q of [
      "space_id=nope",
      "project_id=nope",
      `project_id=${encodeId("Space", PROJECT)}`,
      "custom_metric_id=x",
    ]) {
      const res = await call("GET", `/v2/monitors?${q}`);
      expect([q, res.status]).toEqual([q, 400]);
    }
    expect(calls).toEqual([]);
    answers.ListMonitors = () => ({ monitors: [], page: { nextAfter: "" } });
    await call(
      "GET",
      `/v2/monitors?project_id=${encodeURIComponent(encodeId("Project", PROJECT))}&notifications_enabled=false`,
    );
    expect(calls[0]!.request).toMatchObject({ projectId: PROJECT, notificationsEnabled: false });
  });
});

describe("dashboard routes", () => {
  const widget = (over: Partial<Widget> = {}): Widget => ({
    id: WIDGET,
    dashboardId: DASHBOARD,
    type: "LINE_CHART",
    title: "t",
    gridPosition: [0, 0, 4, 3],
    creationStatus: "PUBLISHED",
    createdAt: at,
    creatorUserId: "",
    widgetType: "LINE",
    plots: [
      {
        id: "p",
        position: 0,
        projectId: PROJECT,
        metric: "COUNT",
        dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" },
        filters: [
          {
            dimension: { category: "SPAN_ATTRIBUTE", name: "route" },
            operator: "EQUALS",
            values: ["/a"],
          },
        ],
      },
    ],
    monitorId: "",
    displayJson: JSON.stringify({ y_min: 0, timezone: "UTC" }),
    ...over,
  });
  const path = `/v2/dashboards/${encodeId("Dashboard", DASHBOARD)}/widgets`;

  it("a widget's body: plots' projects decoded, filters as the monitors', display kept aside", async () => {
    answers.CreateWidget = () => widget();
    const res = await call("POST", path, {
      type: "LINE_CHART",
      title: "t",
      plots: [
        {
          id: "p",
          model_id: encodeId("Project", PROJECT),
          metric: "COUNT",
          dimension_category: "SPAN_ATTRIBUTE",
          dimension_name: "status_code",
          filters: [
            {
              filter_type: "SPAN_ATTRIBUTE",
              dimension_name: "latency_ms",
              operator: "GREATER_THAN",
              numeric_values: [100],
            },
          ],
        },
      ],
      y_min: 0,
      timezone: "UTC",
    });
    expect(res.status).toBe(201);
    const sent = (calls[0]!.request as { widget: Widget }).widget;
    expect(sent.plots[0]).toMatchObject({
      projectId: PROJECT,
      filters: [
        {
          dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
          operator: "GREATER_THAN",
          values: ["100"],
        },
      ],
    });
    expect(JSON.parse(sent.displayJson)).toEqual({ y_min: 0, timezone: "UTC" });
    expect(res.json).toMatchObject({
      id: encodeId("Widget", WIDGET),
      dashboard_id: encodeId("Dashboard", DASHBOARD),
      widget_type: "LINE",
      y_min: 0,
      timezone: "UTC",
      plots: [
        {
          model_id: encodeId("Project", PROJECT),
          filters: [
            { filter_type: "SPAN_ATTRIBUTE", dimension_name: "route", dimension_values: ["/a"] },
          ],
        },
      ],
    });
  });

  it("a widget of an unknown type field or a bad grid is refused at the edge (422)", async () => {
    expect((await call("POST", path, { type: "TEXT", content: "x", colour: "red" })).status).toBe(
      422,
    );
    expect(
      (await call("POST", path, { type: "TEXT", content: "x", grid_position: [0, 0, 1] })).status,
    ).toBe(422);
    expect(calls).toEqual([]);
  });
});
