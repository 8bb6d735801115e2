import type { MatrixHelpers } from "./authz-catalog.ts";

interface Request {
  method: string;
  path: string;
  body?: unknown;
}

/** A TRACING monitor's body, as Argus's write API takes it (evaluated by hand only). */
const monitorBody = (projectId: string, name: string) => ({
  name,
  type: "TRACING",
  project_id: projectId,
  metric: "P95",
  dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
  threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 500 },
  manual_evaluation_enabled: true,
});

/**
 * Recipes of the authorization matrix (authz-matrix.e2e.test.ts) and of the SDK contract for
 * monitors (and their tags) and dashboards: every target lives in a fresh private space of the
 * matrix, so each persona's outcome is decided by its permissions there.
 */
export function monitorRecipes(h: MatrixHelpers): Record<string, () => Promise<Request>> {
  const freshProject = async (space?: string) =>
    (
      await h.asAdmin("POST", "/v2/projects", {
        space_id: space ?? (await h.freshSpace()),
        name: h.unique(),
      })
    ).id as string;
  const freshMonitor = async (space?: string) =>
    (await h.asAdmin("POST", "/v2/monitors", monitorBody(await freshProject(space), h.unique())))
      .id as string;
  const monitorAndTag = async () => {
    const space = await h.freshSpace();
    const tag = (await h.asAdmin("POST", "/v2/tags", { space_id: space, name: h.unique() })).id;
    return { monitor: await freshMonitor(space), tag: tag as string };
  };
  const freshDashboard = async () =>
    (
      await h.asAdmin("POST", "/v2/dashboards", {
        space_id: await h.freshSpace(),
        name: h.unique(),
      })
    ).id as string;
  const text = { type: "TEXT", title: "notes", content: "Latency is watched by a monitor." };
  const freshWidget = async () => {
    const dashboard = await freshDashboard();
    const widget = (await h.asAdmin("POST", `/v2/dashboards/${dashboard}/widgets`, text)).id;
    return `/v2/dashboards/${dashboard}/widgets/${widget as string}`;
  };
  return {
    list_monitors: async () => ({ method: "GET", path: "/v2/monitors" }),
    create_monitor: async () => ({
      method: "POST",
      path: "/v2/monitors",
      body: monitorBody(await freshProject(), h.unique()),
    }),
    get_monitor: async () => ({ method: "GET", path: `/v2/monitors/${await freshMonitor()}` }),
    update_monitor: async () => ({
      method: "PATCH",
      path: `/v2/monitors/${await freshMonitor()}`,
      body: { notes: "changed" },
    }),
    delete_monitor: async () => ({
      method: "DELETE",
      path: `/v2/monitors/${await freshMonitor()}`,
    }),
    evaluate_monitor: async () => ({
      method: "POST",
      path: `/v2/monitors/${await freshMonitor()}/evaluate`,
    }),
    list_monitor_evaluations: async () => {
      const monitor = await freshMonitor();
      await h.asAdmin("POST", `/v2/monitors/${monitor}/evaluate`);
      return { method: "GET", path: `/v2/monitors/${monitor}/evaluations` };
    },
    list_monitor_tags: async () => ({
      method: "GET",
      path: `/v2/monitors/${await freshMonitor()}/tags`,
    }),
    add_monitor_tags: async () => {
      const { monitor, tag } = await monitorAndTag();
      return { method: "POST", path: `/v2/monitors/${monitor}/tags`, body: { tag_ids: [tag] } };
    },
    remove_monitor_tags: async () => {
      const { monitor, tag } = await monitorAndTag();
      await h.asAdmin("POST", `/v2/monitors/${monitor}/tags`, { tag_ids: [tag] });
      return { method: "DELETE", path: `/v2/monitors/${monitor}/tags`, body: { tag_ids: [tag] } };
    },
    list_dashboards: async () => ({ method: "GET", path: "/v2/dashboards" }),
    create_dashboard: async () => ({
      method: "POST",
      path: "/v2/dashboards",
      body: { space_id: await h.freshSpace(), name: h.unique() },
    }),
    get_dashboard: async () => ({
      method: "GET",
      path: `/v2/dashboards/${await freshDashboard()}`,
    }),
    update_dashboard: async () => ({
      method: "PATCH",
      path: `/v2/dashboards/${await freshDashboard()}`,
      body: { description: "changed" },
    }),
    delete_dashboard: async () => ({
      method: "DELETE",
      path: `/v2/dashboards/${await freshDashboard()}`,
    }),
    create_dashboard_widget: async () => ({
      method: "POST",
      path: `/v2/dashboards/${await freshDashboard()}/widgets`,
      body: text,
    }),
    get_dashboard_widget: async () => ({ method: "GET", path: await freshWidget() }),
    update_dashboard_widget: async () => ({
      method: "PATCH",
      path: await freshWidget(),
      body: { ...text, content: "changed" },
    }),
    delete_dashboard_widget: async () => ({ method: "DELETE", path: await freshWidget() }),
    get_dashboard_widget_data: async () => ({
      method: "GET",
      path: `${await freshWidget()}/data`,
    }),
  };
}
