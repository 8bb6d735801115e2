import { streamId, type WidgetSpec } from "@argus/contracts";
import { DomainError, uuidv7, type CallContext, type Permission } from "@argus/platform";
import type {
  CreateDashboardRequest,
  CreateWidgetRequest,
  Dashboard,
  DeleteDashboardRequest,
  DeleteDashboardResponse,
  DeleteWidgetRequest,
  DeleteWidgetResponse,
  UpdateDashboardRequest,
  UpdateWidgetRequest,
  Widget,
} from "@argus/proto/tracing/v1/dashboards";
import { authorized, requireCreatable, spaceMetadata } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { findMonitor, MONITOR_ACCESS, monitorPlaceOf } from "../monitors/monitorRows.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { dashboardDecider } from "./dashboardDecider.ts";
import {
  DASHBOARD_ACCESS,
  findDashboard,
  findWidget,
  specOf,
  toDashboard,
  toWidget,
  widgetsOf,
  type DashboardRow,
} from "./dashboardRows.ts";

const unprocessable = (detail: string) => new DomainError("validation-error", detail);

/** 404 and 403 of a body's reference become the body's fault: 422, naming the field. */
async function asReference<T>(field: string, what: string, find: () => Promise<T>): Promise<T> {
  try {
    return await find();
  } catch (err) {
    if (
      err instanceof DomainError &&
      (err.type === "resource-not-found" || err.type === "access-forbidden")
    )
      throw unprocessable(`${field} names no ${what} you may read`);
    throw err;
  }
}

export function dashboardCommands(deps: TracingDeps) {
  const { pool, spaces } = deps;
  const load = async (ctx: CallContext, id: string, permission: Permission) =>
    authorized(spaces, ctx, await findDashboard(pool, id), DASHBOARD_ACCESS, permission);

  /**
   * What a widget draws must be readable by its writer and in the dashboard's space: each
   * plot's project (PROJECT_READ), a MONITOR chart's monitor (MONITOR_READ).
   */
  async function checkSources(ctx: CallContext, dashboard: DashboardRow, spec: WidgetSpec) {
    const plots = [
      ...spec.plots.map((p, i) => ({ p, field: `plots[${i}].model_id` })),
      ...(spec.statistic ? [{ p: spec.statistic, field: "model_id" }] : []),
    ];
    for (const { p, field } of plots) {
      const project = await asReference(field, "project", () =>
        loadProject(deps, ctx, p.project_id, "PROJECT_READ"),
      );
      if (project.spaceId !== dashboard.space_id)
        throw unprocessable(`${field} names a project of another space than the dashboard's`);
    }
    if (spec.monitor_id !== null) {
      const monitorId = spec.monitor_id;
      const monitor = await asReference("monitor_id", "monitor", async () =>
        authorized(
          spaces,
          ctx,
          await findMonitor(pool, monitorId),
          MONITOR_ACCESS,
          undefined,
          monitorPlaceOf,
        ),
      );
      if (monitor.space_id !== dashboard.space_id)
        throw unprocessable("monitor_id names a monitor of another space than the dashboard's");
    }
  }

  const newId = () => uuidv7(deps.clock.now().getTime());

  return {
    async createDashboard(req: CreateDashboardRequest, ctx: CallContext): Promise<Dashboard> {
      await requireCreatable(spaces, ctx, req.spaceId, "DASHBOARD_CREATE");
      const id = newId();
      await deps.commands.handle(
        streamId("dashboard", id),
        dashboardDecider,
        {
          type: "CreateDashboard",
          id,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          description: req.description,
          userId: ctx.principal.userId,
          now: deps.clock.now(),
        },
        spaceMetadata(ctx, req.spaceId),
      );
      return toDashboard((await findDashboard(pool, id))!, []);
    },

    async updateDashboard(req: UpdateDashboardRequest, ctx: CallContext): Promise<Dashboard> {
      const row = await load(ctx, req.id, "DASHBOARD_UPDATE");
      await deps.commands.handle(
        streamId("dashboard", row.id),
        dashboardDecider,
        {
          type: "UpdateDashboard",
          ...(req.name === undefined ? {} : { name: req.name }),
          ...(req.description === undefined ? {} : { description: req.description }),
          now: deps.clock.now(),
        },
        spaceMetadata(ctx, row.space_id),
      );
      return toDashboard((await findDashboard(pool, row.id))!, await widgetsOf(pool, row.id));
    },

    async deleteDashboard(
      req: DeleteDashboardRequest,
      ctx: CallContext,
    ): Promise<DeleteDashboardResponse> {
      const row = await load(ctx, req.id, "DASHBOARD_DELETE");
      await deps.commands.handle(
        streamId("dashboard", row.id),
        dashboardDecider,
        { type: "DeleteDashboard", now: deps.clock.now() },
        spaceMetadata(ctx, row.space_id),
      );
      return {};
    },

    async createWidget(req: CreateWidgetRequest, ctx: CallContext): Promise<Widget> {
      const dashboard = await load(ctx, req.dashboardId, "DASHBOARD_UPDATE");
      const spec = specOf(req.widget, newId);
      await checkSources(ctx, dashboard, spec);
      const widgetId = newId();
      await deps.commands.handle(
        streamId("dashboard", dashboard.id),
        dashboardDecider,
        { type: "AddWidget", widgetId, spec, userId: ctx.principal.userId, now: deps.clock.now() },
        spaceMetadata(ctx, dashboard.space_id),
      );
      return toWidget(await findWidget(pool, dashboard.id, widgetId));
    },

    async updateWidget(req: UpdateWidgetRequest, ctx: CallContext): Promise<Widget> {
      const dashboard = await load(ctx, req.dashboardId, "DASHBOARD_UPDATE");
      await findWidget(pool, dashboard.id, req.widgetId);
      const spec = specOf(req.widget, newId);
      await checkSources(ctx, dashboard, spec);
      await deps.commands.handle(
        streamId("dashboard", dashboard.id),
        dashboardDecider,
        { type: "ChangeWidget", widgetId: req.widgetId, spec, now: deps.clock.now() },
        spaceMetadata(ctx, dashboard.space_id),
      );
      return toWidget(await findWidget(pool, dashboard.id, req.widgetId));
    },

    async deleteWidget(req: DeleteWidgetRequest, ctx: CallContext): Promise<DeleteWidgetResponse> {
      const dashboard = await load(ctx, req.dashboardId, "DASHBOARD_UPDATE");
      await deps.commands.handle(
        streamId("dashboard", dashboard.id),
        dashboardDecider,
        { type: "RemoveWidget", widgetId: req.widgetId, now: deps.clock.now() },
        spaceMetadata(ctx, dashboard.space_id),
      );
      return {};
    },
  };
}
