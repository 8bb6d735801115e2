"""monitors and dashboards: SDK 8.61.0 has no high-level client for either, so the generated
MonitorsApi and DashboardsApi are driven on the ArizeClient's own generated client (as a user
reaches them): list (with its filters and paging), get, and a monitor's tags; a dashboard
widget's read. What the public API cannot write (a monitor, a dashboard and its widgets) is
written through Argus's own extension endpoints, over plain HTTP with the same key, as a team
managing monitors as code would."""
import json
import urllib.request

from _common import Run, default_space, project_named, send_spans, val

from arize._generated import api_client as gen

r = Run("monitors")
c = r.client
space = default_space(c)
shared = c.projects._api.api_client
monitors = gen.MonitorsApi(shared)
dashboards = gen.DashboardsApi(shared)
tags = gen.TagsApi(shared)


def extension(method: str, path: str, body: dict | None = None) -> dict:
    """One call of Argus's own write API (not in the SDK), with the run's key."""
    req = urllib.request.Request(
        f"{r.base}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"authorization": f"Bearer {r.key}", "content-type": "application/json"})
    with urllib.request.urlopen(req) as res:  # noqa: S310 (the stack under test)
        text = res.read().decode()
        return json.loads(text) if text else {}


project_name = r.name("py-monitored")
send_spans(r, space.id, project_name, traces=3, spans_per_trace=2)
project = project_named(c, space.id, project_name)


def monitor_body(name: str, **over):
    return {
        "name": name, "type": "TRACING", "project_id": project.id, "metric": "P95",
        "dimension": {"category": "SPAN_ATTRIBUTE", "name": "latency_ms"},
        "threshold": {"type": "MANUAL_SINGLE", "operator": "GREATER_THAN", "value": 1000000},
        "evaluation_window_length_seconds": 3600, "manual_evaluation_enabled": True,
        "notes": "watches latency", **over,
    }


a = r.op("create", lambda: extension("POST", "/v2/monitors", monitor_body(r.name("py-mon-a"))))
b = r.op("create_range", lambda: extension("POST", "/v2/monitors", monitor_body(
    r.name("py-mon-b"), metric="COUNT",
    dimension={"category": "SPAN_ATTRIBUTE", "name": "status_code"},
    threshold={"type": "MANUAL_RANGE", "lower": {"operator": "GREATER_THAN_OR_EQUAL", "value": 1},
               "upper": {"operator": "LESS_THAN", "value": 1000}},
    filters=[{"dimension": {"category": "SPAN_ATTRIBUTE", "name": "name"},
              "operator": "CONTAINS_STRING", "values": ["root"]}],
    notification_configs=[{"type": "EMAIL", "email_address": "oncall@example.com"}],
    notifications_enabled=False,
    scheduled_runtime={"enabled": False, "cadence_seconds": 300, "days_of_week": [1, 2]},
    downtime={"start": "2026-01-01T00:00:00Z", "duration_seconds": 600, "frequency_days": 7})))

if a and b:
    got = r.op("get", lambda: monitors.get_monitor(a["id"]))
    if got:
        m = got.actual_instance
        r.eq("get", "fields",
             (type(m).__name__, m.id, m.name, m.type, m.project_id, val(m.status),
              val(m.metric), val(m.dimension.category), m.dimension.name, m.notes,
              m.evaluation_window_length_seconds, m.delay_seconds,
              type(m.threshold.actual_instance).__name__, m.evaluated_at),
             ("TracingMonitor", a["id"], r.name("py-mon-a"), "TRACING", project.id, "NO_DATA",
              "P95", "SPAN_ATTRIBUTE", "latency_ms", "watches latency", 3600, 0,
              "ManualSingleThreshold", None))
    got = r.op("get_range", lambda: monitors.get_monitor(b["id"]))
    if got:
        m = got.actual_instance
        t = m.threshold.actual_instance
        r.eq("get_range", "threshold",
             (type(t).__name__, val(t.lower.operator), t.lower.value, val(t.upper.operator),
              t.upper.value),
             ("ManualRangeThreshold", "GREATER_THAN_OR_EQUAL", 1, "LESS_THAN", 1000))
        r.eq("get_range", "channels",
             [(type(n.actual_instance).__name__, n.actual_instance.email_address)
              for n in m.notification_configs],
             [("EmailNotificationConfig", "oncall@example.com")])
        r.eq("get_range", "filters",
             [(f.dimension.name, val(f.operator), f.values) for f in m.filters],
             [("name", "CONTAINS_STRING", ["root"])])
        r.eq("get_range", "schedule and downtime",
             (m.scheduled_runtime.enabled, m.scheduled_runtime.cadence_seconds,
              m.scheduled_runtime.days_of_week, m.downtime.duration_seconds,
              m.downtime.frequency_days, m.notifications_enabled),
             (False, 300, [1, 2], 600, 7, False))

    listed = r.op("list", lambda: monitors.list_monitors(space_id=space.id, name=r.suffix))
    if listed:
        r.eq("list", "ids", [x.actual_instance.id for x in listed.monitors], [b["id"], a["id"]])
    listed = r.op("list_by_name", lambda: monitors.list_monitors(name=r.name("py-mon-a")))
    if listed:
        r.eq("list_by_name", "ids", [x.actual_instance.id for x in listed.monitors], [a["id"]])
    listed = r.op("list_by_project", lambda: monitors.list_monitors(
        project_name=project_name, data_quality_metric="COUNT"))
    if listed:
        r.eq("list_by_project", "ids", [x.actual_instance.id for x in listed.monitors], [b["id"]])
    listed = r.op("list_by_type", lambda: monitors.list_monitors(
        project_id=project.id, type="DRIFT"))
    if listed:
        r.eq("list_by_type", "ids", listed.monitors, [])
    page = r.op("list_page", lambda: monitors.list_monitors(project_id=project.id, limit=1))
    if page:
        r.eq("list_page", "page", (len(page.monitors), page.pagination.has_more), (1, True))
        rest = r.op("list_next_page", lambda: monitors.list_monitors(
            project_id=project.id, limit=1, cursor=page.pagination.next_cursor))
        if rest:
            r.eq("list_next_page", "ids", [x.actual_instance.id for x in rest.monitors],
                 [a["id"]])

    tag = tags.create_tag(gen.CreateTagRequest(name=r.name("py-mon-tag"), space_id=space.id))
    added = r.op("add_tags", lambda: monitors.add_monitor_tags(
        a["id"], gen.AddTagsRequest(tag_ids=[tag.id])))
    if added:
        r.eq("add_tags", "ids", [x.id for x in added.tags], [tag.id])
    listed = r.op("list_tags", lambda: monitors.list_monitor_tags(a["id"]))
    if listed:
        r.eq("list_tags", "ids", [x.id for x in listed.tags], [tag.id])
    removed = r.op("remove_tags", lambda: monitors.remove_monitor_tags(
        a["id"], gen.RemoveTagsRequest(tag_ids=[tag.id])))
    if removed:
        r.eq("remove_tags", "result", (removed.completed, removed.deleted), (True, [tag.id]))

    evaluation = r.op("evaluate", lambda: extension("POST", f"/v2/monitors/{a['id']}/evaluate"))
    if evaluation:
        r.eq("evaluate", "status", evaluation["status"], "CLEARED")
        got = r.op("get_after_evaluate", lambda: monitors.get_monitor(a["id"]))
        if got:
            m = got.actual_instance
            r.eq("get_after_evaluate", "status",
                 (val(m.status), m.latest_computed_value is not None, m.evaluated_at is not None),
                 ("CLEARED", True, True))
    r.refused("get_unknown", lambda: monitors.get_monitor(
        "TW9uaXRvcjowMTkwYTAwMC0wMDAwLTcwMDAtODAwMC0wMDAwMDAwMDAwMDE="), 404, "not found")

    # Dashboards: the widget read, as the SDK makes it.
    board = r.op("create_dashboard", lambda: extension("POST", "/v2/dashboards", {
        "space_id": space.id, "name": r.name("py-board")}))
    if board:
        widgets = f"/v2/dashboards/{board['id']}/widgets"
        line = extension("POST", widgets, {
            "type": "LINE_CHART", "title": "latency", "y_min": 0, "show_legend": True,
            "plots": [{"id": "p95", "model_id": project.id, "metric": "P95",
                       "dimension_category": "SPAN_ATTRIBUTE", "dimension_name": "latency_ms",
                       "filters": [{"filter_type": "SPAN_ATTRIBUTE", "dimension_name": "name",
                                    "operator": "EQUALS", "dimension_values": ["root-0"]}]}]})
        stat = extension("POST", widgets, {
            "type": "STATISTIC", "title": "spans", "model_id": project.id, "aggregation": "COUNT",
            "dimension_category": "SPAN_ATTRIBUTE", "dimension_name": "status_code"})
        text = extension("POST", widgets, {"type": "TEXT", "title": "notes", "content": "hello"})
        monitor_chart = extension("POST", widgets, {
            "type": "LINE_CHART", "widget_type": "MONITOR", "monitor_id": a["id"]})
        w = r.op("get_widget_line", lambda: dashboards.get_dashboard_widget(board["id"], line["id"]))
        if w:
            x = w.actual_instance
            r.eq("get_widget_line", "fields",
                 (type(x).__name__, x.id, x.dashboard_id, x.title, val(x.widget_type),
                  x.y_min, x.show_legend, [(p.id, p.model_id, p.metric, p.dimension_name)
                                            for p in x.plots],
                  [(f.dimension_name, f.operator, f.dimension_values) for f in x.plots[0].filters]),
                 ("LineChartWidget", line["id"], board["id"], "latency", "LINE", 0, True,
                  [("p95", project.id, "P95", "latency_ms")], [("name", "EQUALS", ["root-0"])]))
        w = r.op("get_widget_statistic", lambda: dashboards.get_dashboard_widget(
            board["id"], stat["id"]))
        if w:
            x = w.actual_instance
            r.eq("get_widget_statistic", "fields",
                 (type(x).__name__, x.aggregation, x.dimension_name),
                 ("StatisticWidget", "COUNT", "status_code"))
        w = r.op("get_widget_text", lambda: dashboards.get_dashboard_widget(board["id"], text["id"]))
        if w:
            x = w.actual_instance
            r.eq("get_widget_text", "fields", (type(x).__name__, x.content), ("TextWidget", "hello"))
        w = r.op("get_widget_monitor", lambda: dashboards.get_dashboard_widget(
            board["id"], monitor_chart["id"]))
        if w:
            x = w.actual_instance
            r.eq("get_widget_monitor", "fields", (val(x.widget_type), x.monitor_id),
                 ("MONITOR", a["id"]))
        data = r.op("widget_data", lambda: extension("GET", f"{widgets}/{stat['id']}/data"))
        if data:
            r.eq("widget_data", "count", data.get("value"), 6)
        r.refused("get_widget_unknown", lambda: dashboards.get_dashboard_widget(
            board["id"], "V2lkZ2V0OjAxOTBhMDAwLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDAwMQ=="),
            404, "not found")

    r.op("delete", lambda: extension("DELETE", f"/v2/monitors/{a['id']}"))
    r.refused("get_after_delete", lambda: monitors.get_monitor(a["id"]), 404, "not found")
r.done()
