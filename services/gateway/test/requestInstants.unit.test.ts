import { DomainError, encodeId, toGrpcError } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { annotationQueueHandlers } from "../src/routes/annotationQueues.ts";
import { apiKeyHandlers } from "../src/routes/apiKeys.ts";
import { auditLogHandlers } from "../src/routes/auditLogs.ts";
import { dashboardHandlers } from "../src/routes/dashboards.ts";
import { monitorHandlers } from "../src/routes/monitors.ts";
import { taskHandlers } from "../src/routes/tasks.ts";
import { routesOnRecording } from "./recordingBackend.ts";

// Every instant a request names outside the spans' window: the Python SDK writes a naive
// datetime without an offset (`isoformat()`), which is UTC, and the service is sent RFC 3339 UTC
// whatever the caller's spelling, so none reads it in its own time zone or stores it as sent.

const id = (type: string, n: number) =>
  encodeId(type, `0192f4a0-0000-7000-8000-${String(n).padStart(12, "0")}`);

const { calls, answers, call } = routesOnRecording((fake) => ({
  ...apiKeyHandlers(fake),
  ...auditLogHandlers(fake),
  ...annotationQueueHandlers(fake),
  ...taskHandlers(fake),
  ...monitorHandlers(fake),
  ...dashboardHandlers(fake),
}));

/** The service refuses whatever it is sent: these tests look only at what it was sent. */
const refuse = () => {
  throw toGrpcError(new DomainError("resource-not-found", "nothing here"));
};

/** One request per spelling, each refused by the service; what the service was sent. */
async function sent(
  rpc: string,
  request: (at: string) => { method: string; path: string; body?: unknown },
  field: (req: Record<string, unknown>) => unknown,
  spellings: readonly string[],
): Promise<unknown[]> {
  answers[rpc] = refuse;
  for (const at of spellings) {
    const r = request(at);
    expect((await call(r.method, r.path, r.body)).status).toBe(404);
  }
  return calls.map((c) => field(c.request as Record<string, unknown>));
}

const SPELLINGS = [
  "2030-01-02T03:04:05",
  "2030-01-02T03:04:05.123456",
  "2030-01-02T03:04:05Z",
  "2030-01-02T05:04:05+02:00",
  "2030-01-02T05:04:05.5+0200",
];
const AS_UTC = [
  "2030-01-02T03:04:05Z",
  "2030-01-02T03:04:05.123456Z",
  "2030-01-02T03:04:05Z",
  "2030-01-02T03:04:05Z",
  "2030-01-02T03:04:05.5Z",
];

/** create_api_key with `at` as its expiry. */
const createKey = (at: string) => ({
  method: "POST",
  path: "/v2/api-keys",
  body: { key_type: "USER", name: "k", expires_at: at },
});

describe("a request's instants reach the service as RFC 3339 UTC", () => {
  it("create_api_key: expires_at", async () => {
    expect(await sent("CreateApiKey", createKey, (r) => r.expiresAt, SPELLINGS)).toEqual(AS_UTC);
  });

  it("refresh_api_key: expires_at", async () => {
    expect(
      await sent(
        "RefreshApiKey",
        (at) => ({
          method: "POST",
          path: `/v2/api-keys/${id("ApiKey", 1)}/refresh`,
          body: { expires_at: at },
        }),
        (r) => r.expiresAt,
        SPELLINGS,
      ),
    ).toEqual(AS_UTC);
  });

  it("list_audit_logs: start_time and end_time", async () => {
    const got = await sent(
      "ListAuditLogs",
      (at) => ({
        method: "GET",
        path: `/v2/audit-logs?start_time=${encodeURIComponent(at)}&end_time=${encodeURIComponent(at)}`,
      }),
      (r) => [r.startTime, r.endTime],
      SPELLINGS,
    );
    expect(got).toEqual(AS_UTC.map((t) => [t, t]));
  });

  it("add records to an annotation queue: a span source's window", async () => {
    const got = await sent(
      "AddAnnotationQueueRecords",
      (at) => ({
        method: "POST",
        path: `/v2/annotation-queues/${id("AnnotationQueue", 2)}/records`,
        body: {
          record_sources: [
            {
              record_type: "SPAN",
              project_id: id("Project", 3),
              start_time: at,
              end_time: at,
              span_ids: ["00000000000000a1"],
            },
          ],
        },
      }),
      (r) => {
        const [s] = r.recordSources as { startTime: string; endTime: string }[];
        return [s!.startTime, s!.endTime];
      },
      SPELLINGS,
    );
    expect(got).toEqual(AS_UTC.map((t) => [t, t]));
  });

  it("trigger_task_run: the evaluated window", async () => {
    const got = await sent(
      "TriggerRun",
      (at) => ({
        method: "POST",
        path: `/v2/tasks/${id("Task", 4)}/trigger`,
        body: { data_start_time: at, data_end_time: at },
      }),
      (r) => [r.dataStartTime, r.dataEndTime],
      SPELLINGS,
    );
    expect(got).toEqual(AS_UTC.map((t) => [t, t]));
  });

  it("update_monitor: downtime.start", async () => {
    const got = await sent(
      "UpdateMonitor",
      (at) => ({
        method: "PATCH",
        path: `/v2/monitors/${id("Monitor", 5)}`,
        body: { downtime: { start: at, duration_seconds: 60 } },
      }),
      (r) => (r.fields as { downtime: { start: string } }).downtime.start,
      SPELLINGS,
    );
    expect(got).toEqual(AS_UTC);
  });

  it("get_dashboard_widget_data: start_time and end_time", async () => {
    const got = await sent(
      "GetWidgetData",
      (at) => ({
        method: "GET",
        path:
          `/v2/dashboards/${id("Dashboard", 6)}/widgets/${id("Widget", 7)}/data` +
          `?start_time=${encodeURIComponent(at)}&end_time=${encodeURIComponent(at)}`,
      }),
      (r) => [r.startTime, r.endTime],
      SPELLINGS,
    );
    expect(got).toEqual(AS_UTC.map((t) => [t, t]));
  });

  it("leaves an instant left out unset, and refuses one that is no date-time (422, as every body the schema refuses)", async () => {
    answers.TriggerRun = refuse;
    expect((await call("POST", `/v2/tasks/${id("Task", 4)}/trigger`, {})).status).toBe(404);
    expect(calls[0]!.request).toMatchObject({ dataStartTime: "", dataEndTime: "" });
    for (const bad of ["tomorrow", "2030-01-02", "2030-13-02T03:04:05", "2030-01-02T03:04:05+2"]) {
      const res = await call("POST", "/v2/api-keys", {
        key_type: "USER",
        name: "k",
        expires_at: bad,
      });
      expect([bad, res.status]).toEqual([bad, 422]);
    }
    expect(calls).toHaveLength(1);
  });
});

describe("an instant the clients cannot read back is refused (400, an invalid request)", () => {
  it("takes years 0001-9999 in UTC, to their edges, and refuses what falls outside", async () => {
    const edges = [
      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999999Z",
      "0001-01-01T01:00:00+01:00",
    ];
    expect(await sent("CreateApiKey", createKey, (r) => r.expiresAt, edges)).toEqual([
      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999999Z",
      "0001-01-01T00:00:00Z",
    ]);
    calls.length = 0;
    for (const bad of [
      "0000-12-31T23:59:59Z",
      "0001-01-01T00:30:00+01:00",
      "9999-12-31T23:30:00-01:00",
    ]) {
      const r = createKey(bad);
      expect([bad, (await call(r.method, r.path, r.body)).status]).toEqual([bad, 400]);
    }
    expect(calls).toHaveLength(0);
  });

  it("a widget's display start_time and end_time: stored as sent, so no leap second or year 0000", async () => {
    answers.CreateWidget = refuse;
    const path = `/v2/dashboards/${id("Dashboard", 6)}/widgets`;
    const widget = (start_time: string) => ({ type: "TEXT", title: "t", content: "c", start_time });
    expect((await call("POST", path, widget("2030-01-02T05:04:05+02:00"))).status).toBe(404);
    expect(
      JSON.parse((calls[0]!.request as { widget: { displayJson: string } }).widget.displayJson),
    ).toEqual({ start_time: "2030-01-02T05:04:05+02:00" });
    for (const bad of [
      "2016-12-31T23:59:60Z",
      "0000-01-01T00:00:00Z",
      "0000-12-31T23:00:00-02:00",
    ]) {
      const res = await call("POST", path, widget(bad));
      expect([bad, res.status]).toEqual([bad, 400]);
      const end = await call("POST", path, { ...widget("2030-01-02T05:04:05Z"), end_time: bad });
      expect([bad, end.status]).toEqual([bad, 400]);
    }
    expect(calls).toHaveLength(1);
  });
});
