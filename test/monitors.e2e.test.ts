/**
 * Monitors end to end (issue 30): spans ingested over OTLP, a monitor of their latency (of an
 * evaluation's score, against a dynamic threshold) going TRIGGERED and back to CLEARED through
 * the API, each change delivered ONCE to a loopback receiver, signed and verified with the
 * public Standard Webhooks verifier; NO_DATA on an empty window; nothing sent in a downtime;
 * the public reads, tags, cascades, and bad input answered with clear Problems.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@argus/contracts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";
import {
  latencyMonitor,
  sendTimedSpans,
  spansOf,
  verified,
  type TestSpan,
} from "./monitors-support.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { untilRun } from "./tasks-support.ts";

let api: Api;
let orgId: string;
let spaceId: string;
let receiver: Receiver;
let hook: { id: string; secret: string };
let n = 0;
const unique = (what: string) => `${what}-${Date.now()}-${n++}`;
const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  api = await startApi({
    env: {
      ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true",
      // Scheduled monitors of this suite run every second.
      ARGUS_MONITOR_MIN_CADENCE_SECONDS: "1",
      ARGUS_MONITOR_POLL_MS: "100",
    },
  });
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  receiver = await startReceiver();
  const w = await asAdmin("POST", "/v2/webhooks", {
    organization_id: orgId,
    name: unique("monitor-hook"),
    url: receiver.url,
    auth_type: "HMAC_SHA256",
  });
  hook = { id: w.id, secret: w.signing_secret };
}, 300_000);
afterAll(async () => {
  await receiver?.close();
  await api?.stop();
});

/** The deliveries received so far that are about this monitor, parsed and verified. */
const deliveriesOf = (monitorId: string): Json[] =>
  receiver.received
    .map((r) => verified(hook.secret, r))
    .filter((p) => p.data?.monitor_id === monitorId);

async function untilDeliveries(monitorId: string, count: number): Promise<Json[]> {
  const deadline = Date.now() + 20_000;
  while (deliveriesOf(monitorId).length < count) {
    if (Date.now() > deadline)
      throw new Error(
        `${deliveriesOf(monitorId).length} deliveries of ${monitorId}, wanted ${count}`,
      );
    await sleep(100);
  }
  // A moment more: anything beyond `count` would show.
  await sleep(500);
  return deliveriesOf(monitorId);
}

const evaluate = async (id: string) => asAdmin("POST", `/v2/monitors/${id}/evaluate`);
const webhookChannel = () => [{ type: "WEBHOOK", id: hook.id }];

describe("a latency monitor, end to end", () => {
  it("slow spans → TRIGGERED → one signed delivery; recovery → CLEARED → one more", async () => {
    const project = unique("latency");
    const projectId = await sendTimedSpans(api, spaceId, project, spansOf(10, 800));
    const m = await asAdmin(
      "POST",
      "/v2/monitors",
      latencyMonitor(projectId, unique("p95"), { notification_configs: webhookChannel() }),
    );
    expect(m).toMatchObject({
      type: "TRACING",
      status: "NO_DATA",
      notification_configs: [{ type: "WEBHOOK", id: hook.id, url: receiver.url }],
    });
    expect(m.evaluated_at).toBeUndefined();

    const first = await evaluate(m.id);
    expect(first).toMatchObject({
      status: "TRIGGERED",
      previous_status: "NO_DATA",
      trigger: "MANUAL",
      threshold: { single: { operator: "GREATER_THAN", value: 300 } },
      notifications: [{ type: "WEBHOOK", target: hook.id, state: "QUEUED" }],
    });
    expect(first.value).toBeGreaterThanOrEqual(800);
    const [triggered] = await untilDeliveries(m.id, 1);
    expect(triggered).toMatchObject({
      event: "monitor.triggered",
      event_type: "MONITOR_TRIGGERED",
      data: {
        monitor_id: m.id,
        project_id: projectId,
        space_id: spaceId,
        status: "TRIGGERED",
        previous_status: "NO_DATA",
        metric: "P95",
        dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
      },
    });
    // Still slow: no change, nothing sent.
    expect((await evaluate(m.id)).status).toBe("TRIGGERED");
    expect(await untilDeliveries(m.id, 1)).toHaveLength(1);
    const read = await asAdmin("GET", `/v2/monitors/${m.id}`);
    expect(read).toMatchObject({ status: "TRIGGERED" });
    expect(read.latest_computed_value).toBeGreaterThanOrEqual(800);

    // Latency recovers: 400 fast spans bring the P95 under the threshold.
    await sendTimedSpans(api, spaceId, project, spansOf(400, 20));
    const cleared = await evaluate(m.id);
    expect(cleared).toMatchObject({ status: "CLEARED", previous_status: "TRIGGERED" });
    const all = await untilDeliveries(m.id, 2);
    expect(all.map((p) => p.event)).toEqual(["monitor.triggered", "monitor.cleared"]);
    expect(all[1]!.data).toMatchObject({ status: "CLEARED", previous_status: "TRIGGERED" });
    // One webhook-id per change, its event's: a receiver de-duplicates by it.
    const ids = receiver.received
      .filter((r) => JSON.parse(r.body).data?.monitor_id === m.id)
      .map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(2);

    // The history, newest first.
    const history = await asAdmin("GET", `/v2/monitors/${m.id}/evaluations?limit=10`);
    expect(history.evaluations.map((e: Json) => e.status)).toEqual([
      "CLEARED",
      "TRIGGERED",
      "TRIGGERED",
    ]);
    // The delivery log of the webhook has them, as every delivery.
    const log = await asAdmin("GET", `/v2/webhooks/${hook.id}/delivery-attempts`);
    const logged = (log.delivery_attempts as Json[]).filter(
      (a) => (a.payload as Json).data?.monitor_id === m.id,
    );
    expect(logged.map((a) => [a.payload.event, a.status_code])).toEqual([
      ["monitor.cleared", 200],
      ["monitor.triggered", 200],
    ]);
  });

  it("NO_DATA when the window is empty: a change that tells nobody", async () => {
    const project = unique("empty");
    const projectId = await sendTimedSpans(api, spaceId, project, spansOf(5, 800, 500));
    const m = await asAdmin(
      "POST",
      "/v2/monitors",
      latencyMonitor(projectId, unique("short"), {
        evaluation_window_length_seconds: 3,
        notification_configs: webhookChannel(),
      }),
    );
    expect((await evaluate(m.id)).status).toBe("TRIGGERED");
    await untilDeliveries(m.id, 1);
    await sleep(3_500); // the spans leave the 3 s window
    const empty = await evaluate(m.id);
    expect(empty).toMatchObject({
      status: "NO_DATA",
      previous_status: "TRIGGERED",
      reason: "no spans in the window",
      notifications: [],
    });
    expect(empty.value).toBeUndefined();
    expect(await untilDeliveries(m.id, 1)).toHaveLength(1);
    expect((await asAdmin("GET", `/v2/monitors/${m.id}`)).status).toBe("NO_DATA");
  });
});

describe("a monitor of an evaluation's score", () => {
  it("an evaluation task's scores below the threshold → TRIGGERED; better answers → CLEARED", async () => {
    const project = unique("answers");
    const bad: TestSpan[] = Array.from({ length: 4 }, (_, i) => ({
      startMs: Date.now() - 3_000 + i,
      durationMs: 10,
      name: `answer wrong ${i}`,
    }));
    const projectId = await sendTimedSpans(api, spaceId, project, bad);
    // A managed CODE evaluator scoring a span 1 when its name says "right", else 0.
    const evaluator = await asAdmin("POST", "/v2/evaluators", {
      space_id: spaceId,
      name: unique("is-right"),
      type: "CODE",
      version: {
        commit_message: "c",
        code_config: {
          type: "MANAGED",
          name: "is_right",
          managed_evaluator: "CONTAINS_ANY_KEYWORD",
          variables: ["text"],
          static_params: [{ name: "keywords", type: "STRING_ARRAY", default_value: ["right"] }],
        },
      },
    });
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("score-task"),
      project_id: projectId,
      evaluators: [{ evaluator_id: evaluator.id, column_mappings: { text: "name" } }],
    });
    const runTask = async () => {
      const run = await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, {
        data_start_time: new Date(Date.now() - 600_000).toISOString(),
        data_end_time: new Date(Date.now() + 60_000).toISOString(),
        override_evaluations: true,
      });
      expect((await untilRun(asAdmin, run.id)).status).toBe("COMPLETED");
    };
    await runTask();
    const m = await asAdmin("POST", "/v2/monitors", {
      name: unique("correctness"),
      type: "TRACING",
      project_id: projectId,
      metric: "AVG",
      dimension: { category: "LLM_EVAL", name: "is_right" },
      threshold: { type: "MANUAL_SINGLE", operator: "LESS_THAN", value: 0.5 },
      evaluation_window_length_seconds: 600,
      manual_evaluation_enabled: true,
      notification_configs: webhookChannel(),
    });
    const low = await evaluate(m.id);
    expect(low).toMatchObject({ status: "TRIGGERED", value: 0 });
    expect((await untilDeliveries(m.id, 1))[0]).toMatchObject({ event: "monitor.triggered" });

    await sendTimedSpans(
      api,
      spaceId,
      project,
      Array.from({ length: 12 }, (_, i) => ({
        startMs: Date.now() - 2_000 + i,
        durationMs: 10,
        name: `answer right ${i}`,
      })),
    );
    await runTask();
    const high = await evaluate(m.id);
    expect(high).toMatchObject({ status: "CLEARED", value: 0.75 });
    expect((await untilDeliveries(m.id, 2)).map((p) => p.event)).toEqual([
      "monitor.triggered",
      "monitor.cleared",
    ]);
  }, 120_000);
});

describe("a dynamic threshold", () => {
  it("derived from the metric's history: a spike triggers, its dilution clears", async () => {
    const project = unique("dynamic");
    const W = 30_000;
    // 24 windows of history with an average latency of about 100 ms.
    const history: TestSpan[] = [];
    for (let w = 1; w <= 24; w++)
      for (let i = 0; i < 4; i++)
        history.push({
          startMs: Date.now() - 5_000 - w * W + i * 1000,
          durationMs: 90 + ((w + i) % 3) * 10,
        });
    const projectId = await sendTimedSpans(api, spaceId, project, history);
    const m = await asAdmin("POST", "/v2/monitors", {
      name: unique("dynamic"),
      type: "TRACING",
      project_id: projectId,
      metric: "AVG",
      dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
      threshold: {
        type: "DYNAMIC_SINGLE",
        calculation: "STDEV",
        operator: "GREATER_THAN",
        multiplier: 3,
      },
      evaluation_window_length_seconds: W / 1000,
      manual_evaluation_enabled: true,
      notification_configs: webhookChannel(),
    });
    // Nothing in the window yet.
    expect((await evaluate(m.id)).status).toBe("NO_DATA");
    await sendTimedSpans(api, spaceId, project, spansOf(3, 300, 3_000));
    const spike = await evaluate(m.id);
    expect(spike.status).toBe("TRIGGERED");
    // The bound the history made: mean + 3 standard deviations of the windows' averages.
    expect(spike.threshold.single.operator).toBe("GREATER_THAN");
    expect(spike.threshold.single.value).toBeGreaterThan(100);
    expect(spike.threshold.single.value).toBeLessThan(130);
    expect((await untilDeliveries(m.id, 1))[0]!.data.threshold.single.value).toBe(
      spike.threshold.single.value,
    );
    await sendTimedSpans(api, spaceId, project, spansOf(300, 90, 3_000));
    const diluted = await evaluate(m.id);
    expect(diluted.value).toBeLessThan(diluted.threshold.single.value);
    expect(diluted.status).toBe("CLEARED");
    expect((await untilDeliveries(m.id, 2)).map((p) => p.event)).toEqual([
      "monitor.triggered",
      "monitor.cleared",
    ]);
  });
});

describe("downtime and the schedule", () => {
  it("nothing is evaluated or sent on the schedule in a downtime; evaluated now it keeps the status", async () => {
    const project = unique("downtime");
    const projectId = await sendTimedSpans(api, spaceId, project, spansOf(10, 800));
    const m = await asAdmin(
      "POST",
      "/v2/monitors",
      latencyMonitor(projectId, unique("quiet"), {
        manual_evaluation_enabled: false,
        scheduled_runtime: { enabled: true, cadence_seconds: 1 },
        downtime: { start: new Date(Date.now() - 60_000).toISOString(), duration_seconds: 3600 },
        notification_configs: webhookChannel(),
      }),
    );
    await sleep(3_000); // three cadences of the schedule
    expect((await asAdmin("GET", `/v2/monitors/${m.id}/evaluations`)).evaluations).toEqual([]);
    const now = await evaluate(m.id);
    expect(now).toMatchObject({
      status: "TRIGGERED",
      previous_status: "NO_DATA",
      in_downtime: true,
      reason: "in a downtime window: the status is kept",
      notifications: [],
    });
    expect((await asAdmin("GET", `/v2/monitors/${m.id}`)).status).toBe("NO_DATA");
    expect(deliveriesOf(m.id)).toEqual([]);

    // Without the downtime the schedule evaluates within a cadence or two: TRIGGERED, sent.
    await asAdmin("PATCH", `/v2/monitors/${m.id}`, { downtime: null });
    const [sent] = await untilDeliveries(m.id, 1);
    expect(sent).toMatchObject({ event: "monitor.triggered" });
    const history = (await asAdmin("GET", `/v2/monitors/${m.id}/evaluations`))
      .evaluations as Json[];
    expect(history.some((e) => e.trigger === "SCHEDULE" && e.status === "TRIGGERED")).toBe(true);
  });
});

describe("channels, reads, tags and cascades", () => {
  it("e-mail and integration channels are listed, and recorded NOT_SENT with the reason", async () => {
    const projectId = await sendTimedSpans(api, spaceId, unique("channels"), spansOf(5, 800));
    const integration = Buffer.from("Integration:0190a000-0000-7000-8000-000000000042").toString(
      "base64",
    );
    const m = await asAdmin(
      "POST",
      "/v2/monitors",
      latencyMonitor(projectId, unique("mail"), {
        notification_configs: [
          { type: "EMAIL", email_address: "oncall@example.com" },
          { type: "INTEGRATION", integration_id: integration },
          ...webhookChannel(),
        ],
      }),
    );
    expect((await asAdmin("GET", `/v2/monitors/${m.id}`)).notification_configs).toEqual([
      { type: "EMAIL", email_address: "oncall@example.com" },
      { type: "INTEGRATION", integration_id: integration },
      { type: "WEBHOOK", id: hook.id, url: receiver.url },
    ]);
    const e = await evaluate(m.id);
    expect(e.notifications).toEqual([
      {
        type: "EMAIL",
        target: "oncall@example.com",
        state: "NOT_SENT",
        reason: "Argus has no e-mail channel yet: only WEBHOOK channels are delivered",
      },
      {
        type: "INTEGRATION",
        target: integration,
        state: "NOT_SENT",
        reason: "Argus has no integration channel yet: only WEBHOOK channels are delivered",
      },
      { type: "WEBHOOK", target: hook.id, state: "QUEUED" },
    ]);
    expect(await untilDeliveries(m.id, 1)).toHaveLength(1);
  });

  it("the public list filters, pages and tags; a deleted webhook leaves the channels", async () => {
    const projectName = unique("listed");
    const projectId = await sendTimedSpans(api, spaceId, projectName, spansOf(2, 50));
    const name = unique("list");
    const a = await asAdmin("POST", "/v2/monitors", latencyMonitor(projectId, `${name}-a`));
    const temp = await asAdmin("POST", "/v2/webhooks", {
      organization_id: orgId,
      name: unique("temp"),
      url: receiver.url,
    });
    const b = await asAdmin(
      "POST",
      "/v2/monitors",
      latencyMonitor(projectId, `${name}-b`, {
        metric: "COUNT",
        dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" },
        notifications_enabled: false,
        notification_configs: [{ type: "WEBHOOK", id: temp.id }],
      }),
    );
    const list = async (q: string) =>
      ((await asAdmin("GET", `/v2/monitors?name=${name}&${q}`)).monitors as Json[]).map(
        (m) => m.id,
      );
    expect(await list("")).toEqual([b.id, a.id]);
    expect(await list(`project_id=${encodeURIComponent(projectId)}`)).toEqual([b.id, a.id]);
    expect(await list(`project_name=${projectName}`)).toEqual([b.id, a.id]);
    expect(await list(`space_id=${encodeURIComponent(spaceId)}`)).toEqual([b.id, a.id]);
    expect(await list("notifications_enabled=false")).toEqual([b.id]);
    expect(await list("data_quality_metric=COUNT")).toEqual([b.id]);
    expect(await list("dimension_name=latency_ms")).toEqual([a.id]);
    expect(await list("dimension_category=SPAN_ATTRIBUTE&type=TRACING&status=NO_DATA")).toEqual([
      b.id,
      a.id,
    ]);
    expect(await list("type=DRIFT")).toEqual([]);
    expect(await list("drift_metric=PSI")).toEqual([]);
    const page = await asAdmin("GET", `/v2/monitors?name=${name}&limit=1`);
    expect(page.monitors.map((m: Json) => m.id)).toEqual([b.id]);
    const next = await asAdmin(
      "GET",
      `/v2/monitors?name=${name}&limit=1&cursor=${page.pagination.next_cursor}`,
    );
    expect(next.monitors.map((m: Json) => m.id)).toEqual([a.id]);
    expect(next.pagination).toEqual({ has_more: false });
    expectProblem(await api.req("GET", "/v2/monitors?space_id=garbage"), 400, "invalid-request");
    const custom = Buffer.from("CustomMetric:0190a000-0000-7000-8000-000000000001").toString(
      "base64",
    );
    expectProblem(
      await api.req("GET", `/v2/monitors?custom_metric_id=${encodeURIComponent(custom)}`),
      404,
      "resource-not-found",
    );

    // Tags, like every taggable resource's.
    const tag = await asAdmin("POST", "/v2/tags", { space_id: spaceId, name: unique("tag") });
    const added = await asAdmin("POST", `/v2/monitors/${a.id}/tags`, { tag_ids: [tag.id] });
    expect(added.tags.map((t: Json) => t.id)).toEqual([tag.id]);
    expect((await asAdmin("GET", `/v2/monitors/${a.id}/tags`)).tags.map((t: Json) => t.id)).toEqual(
      [tag.id],
    );
    expectProblem(
      await api.req("POST", `/v2/monitors/${a.id}/tags`, { body: { tag_ids: [] } }),
      422,
      "validation-error",
    );
    expectProblem(
      await api.req("DELETE", `/v2/monitors/${a.id}/tags`, {
        body: { tag_ids: [tag.id], extra: 1 },
      }),
      400,
      "invalid-request",
    );
    const removed = await asAdmin("DELETE", `/v2/monitors/${a.id}/tags`, { tag_ids: [tag.id] });
    expect(removed).toMatchObject({ completed: true, deleted: [tag.id], not_deleted: [] });

    // Deleting the webhook takes it out of the monitor's channels.
    await asAdmin("DELETE", `/v2/webhooks/${temp.id}`);
    const deadline = Date.now() + 15_000;
    while ((await asAdmin("GET", `/v2/monitors/${b.id}`)).notification_configs !== undefined) {
      if (Date.now() > deadline) throw new Error("the deleted webhook is still a channel");
      await sleep(100);
    }
  });

  it("deleting the project deletes its monitors and their tags", async () => {
    const projectId = await sendTimedSpans(api, spaceId, unique("doomed"), spansOf(2, 50));
    const m = await asAdmin("POST", "/v2/monitors", latencyMonitor(projectId, unique("doomed")));
    const tag = await asAdmin("POST", "/v2/tags", { space_id: spaceId, name: unique("tag") });
    await asAdmin("POST", `/v2/monitors/${m.id}/tags`, { tag_ids: [tag.id] });
    await asAdmin("DELETE", `/v2/projects/${projectId}`);
    const deadline = Date.now() + 15_000;
    while ((await api.req("GET", `/v2/monitors/${m.id}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error("the deleted project's monitor is still there");
      await sleep(100);
    }
    expectProblem(await api.req("GET", `/v2/monitors/${m.id}/tags`), 404, "resource-not-found");
  });
});

describe("bad input gets a clear Problem", () => {
  let projectId: string;
  beforeAll(async () => {
    projectId = await sendTimedSpans(api, spaceId, unique("bad"), spansOf(1, 10));
  });
  const create = (over: Json) =>
    api.req("POST", "/v2/monitors", { body: latencyMonitor(projectId, unique("bad"), over) });

  it("an unknown project is 404; an ML type, a model's dimension, low > high, an unknown webhook 422", async () => {
    const unknown = Buffer.from("Project:0190a000-0000-7000-8000-000000000001").toString("base64");
    const r404 = await create({ project_id: unknown });
    expectProblem(r404, 404, "resource-not-found");
    expect(r404.body.detail).toBe("project not found");
    const drift = await create({ type: "DRIFT" });
    expectProblem(drift, 422, "validation-error");
    expect(drift.body.detail).toMatch(
      /monitors of type DRIFT are not supported: Argus has no ML models/,
    );
    const dim = await create({ dimension: { category: "FEATURE_LABEL", name: "f" } });
    expectProblem(dim, 422, "validation-error");
    expect(dim.body.detail).toMatch(
      /dimension.category FEATURE_LABEL is not allowed for TRACING monitors/,
    );
    const range = await create({
      threshold: {
        type: "MANUAL_RANGE",
        lower: { operator: "GREATER_THAN", value: 10 },
        upper: { operator: "LESS_THAN", value: 5 },
      },
    });
    expectProblem(range, 422, "validation-error");
    expect(range.body.detail).toBe(
      "threshold.lower.value (10) must not be above threshold.upper.value (5)",
    );
    const ghost = Buffer.from("Webhook:0190a000-0000-7000-8000-000000000001").toString("base64");
    const hookless = await create({ notification_configs: [{ type: "WEBHOOK", id: ghost }] });
    expectProblem(hookless, 422, "validation-error");
    expect(hookless.body.detail).toMatch(/notification_configs\[0\]\.id names no webhook/);
    const topN = await create({
      filters: [
        {
          dimension: { category: "SPAN_ATTRIBUTE", name: "name" },
          operator: "TOP_N",
          values: ["3"],
        },
      ],
    });
    expectProblem(topN, 422, "validation-error");
  });

  it("limits at their edges: window 0/1/max/max+1, name 0/1/max/max+1, filters and channels max/max+1", async () => {
    const status = async (over: Json) => (await create(over)).status;
    expectProblem(await create({ evaluation_window_length_seconds: 0 }), 422, "validation-error");
    expect(await status({ evaluation_window_length_seconds: 1 })).toBe(201);
    expect(
      await status({ evaluation_window_length_seconds: LIMITS.MONITOR_WINDOW_SECONDS_MAX }),
    ).toBe(201);
    expect(
      await status({ evaluation_window_length_seconds: LIMITS.MONITOR_WINDOW_SECONDS_MAX + 1 }),
    ).toBe(422);
    expect(await status({ name: "" })).toBe(422);
    expect(await status({ name: "x" })).toBe(201);
    expect(await status({ name: "x".repeat(LIMITS.MONITOR_NAME_MAX) })).toBe(201);
    expect(await status({ name: "x".repeat(LIMITS.MONITOR_NAME_MAX + 1) })).toBe(422);
    const filter = {
      dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" },
      operator: "EQUALS",
      values: ["OK"],
    };
    expect(await status({ filters: [] })).toBe(201);
    expect(await status({ filters: [filter] })).toBe(201);
    expect(await status({ filters: Array(LIMITS.MONITOR_FILTERS_MAX).fill(filter) })).toBe(201);
    expect(await status({ filters: Array(LIMITS.MONITOR_FILTERS_MAX + 1).fill(filter) })).toBe(422);
    const mail = (i: number) => ({ type: "EMAIL", email_address: `o${i}@example.com` });
    expect(
      await status({
        notification_configs: Array.from({ length: LIMITS.MONITOR_CHANNELS_MAX }, (_, i) =>
          mail(i),
        ),
      }),
    ).toBe(201);
    expect(
      await status({
        notification_configs: Array.from({ length: LIMITS.MONITOR_CHANNELS_MAX + 1 }, (_, i) =>
          mail(i),
        ),
      }),
    ).toBe(422);
    // Unrecognized and read-only fields are refused; an update needs a field.
    expectProblem(await create({ status: "TRIGGERED" }), 422, "validation-error");
    const m = await asAdmin("POST", "/v2/monitors", latencyMonitor(projectId, unique("patch")));
    expectProblem(
      await api.req("PATCH", `/v2/monitors/${m.id}`, { body: {} }),
      422,
      "validation-error",
    );
    expectProblem(
      await api.req("PATCH", `/v2/monitors/${m.id}`, { body: { type: "DRIFT" } }),
      422,
      "validation-error",
    );
    expectProblem(await api.req("GET", "/v2/monitors/not-an-id"), 404, "resource-not-found");
  });
});
