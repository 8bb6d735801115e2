import { describe, expect, it } from "vitest";
import { LIMITS, type MonitorEvent, type MonitorSettings } from "@argus/contracts";
import { problem, problemDetail, scenario } from "@argus/eventstore/testing";
import {
  monitorDecider,
  StaleEvaluation,
  type MonitorCommand,
} from "../src/monitors/monitorDecider.ts";
import {
  assess,
  baselineOf,
  checkSettings,
  isInDowntime,
  judge,
  nextRunAfter,
  resolveThreshold,
  windowAt,
  type MonitorChanges,
  type Outcome,
} from "../src/monitors/monitorRules.ts";

const now = new Date("2026-03-04T10:00:00.000Z");
const at = now.toISOString();
const WEBHOOK = "0190a000-0000-7000-8000-00000000000a";

const base: MonitorSettings = {
  name: "slow spans",
  notes: null,
  metric: "P95",
  dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
  filters: [],
  threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 500 },
  notifications_enabled: true,
  manual_evaluation_enabled: false,
  channels: [{ type: "WEBHOOK", webhook_id: WEBHOOK }],
  downtime: null,
  schedule: null,
  window_seconds: 3600,
  delay_seconds: 0,
};

type Create = Extract<MonitorCommand, { type: "CreateMonitor" }>;
const create = (changes: MonitorChanges = base, over: Partial<Create> = {}): Create => ({
  type: "CreateMonitor",
  id: "m1",
  accountId: "a1",
  organizationId: "o1",
  spaceId: "s1",
  projectId: "p1",
  monitorType: "TRACING",
  changes,
  userId: "u1",
  now,
  ...over,
});
const update = (changes: MonitorChanges, monitorType?: string): MonitorCommand => ({
  type: "UpdateMonitor",
  monitorType,
  changes,
  now: new Date(now.getTime() + 1000),
});
const outcome = (status: Outcome["status"], over: Partial<Outcome> = {}): Outcome => ({
  status,
  value: status === "NO_DATA" ? null : status === "TRIGGERED" ? 900 : 100,
  threshold: { single: { operator: "GREATER_THAN", value: 500 }, lower: null, upper: null },
  inDowntime: false,
  reason: "",
  ...over,
});
const record = (o: Outcome, settingsAt = at): MonitorCommand => ({
  type: "RecordEvaluation",
  evaluationId: "e1",
  settingsAt,
  outcome: o,
  window: { start: new Date(now.getTime() - 3_600_000), end: now },
  evaluatedAt: now,
});

const { given, history } = scenario(monitorDecider);
const created = history(create());
const changes = (events: MonitorEvent[]) =>
  events.map((e) =>
    e.type === "MonitorStatusChanged"
      ? `${e.data.previous_status}→${e.data.status}${e.data.notify ? " notify" : ""}`
      : e.type,
  );
/** The status changes a sequence of evaluations makes, from a fresh monitor. */
function run(statuses: (Outcome["status"] | "DOWNTIME")[], settings: MonitorChanges = base) {
  let events = history(create(settings));
  const out: string[] = [];
  for (const s of statuses) {
    const o = s === "DOWNTIME" ? outcome("TRIGGERED", { inDowntime: true }) : outcome(s);
    const made = given(events).when(record(o));
    out.push(...changes(made));
    events = [...events, ...made];
  }
  return out;
}

describe("monitor decider: settings", () => {
  it("given nothing, a TRACING monitor is created with its defaults", () => {
    const [e] = given([]).when(
      create({
        name: "n",
        metric: "COUNT",
        dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" },
        threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 0 },
      }),
    );
    expect(e).toMatchObject({
      type: "MonitorCreated",
      data: {
        id: "m1",
        organization_id: "o1",
        window_seconds: 3600,
        delay_seconds: 0,
        notifications_enabled: true,
        manual_evaluation_enabled: false,
        filters: [],
        channels: [],
        downtime: null,
        schedule: null,
        created_at: at,
      },
    });
  });

  it("the ML types are refused with a clear 422, an unknown type and a missing one too", () => {
    for (const type of ["DATA_QUALITY", "PERFORMANCE", "DRIFT", "CUSTOM_METRIC"])
      expect(problemDetail(() => given([]).when(create(base, { monitorType: type })))).toBe(
        `validation-error: monitors of type ${type} are not supported: Argus has no ML models; only TRACING monitors (metrics of a project's spans) are`,
      );
    expect(problemDetail(() => given([]).when(create(base, { monitorType: "X" })))).toMatch(
      /^validation-error: type must be one of/,
    );
    expect(problemDetail(() => given([]).when(create(base, { monitorType: undefined })))).toBe(
      "validation-error: type is required",
    );
  });

  it("name, metric, dimension and threshold are required on create", () => {
    for (const field of ["name", "metric", "dimension", "threshold"] as const) {
      const { [field]: _gone, ...rest } = base;
      expect(problemDetail(() => given([]).when(create(rest)))).toBe(
        `validation-error: ${field} is required`,
      );
    }
  });

  it("a dimension category of a model is refused, naming the ones TRACING allows", () => {
    expect(
      problemDetail(() =>
        given([]).when(
          create({ ...base, dimension: { category: "FEATURE_LABEL" as never, name: "x" } }),
        ),
      ),
    ).toBe(
      "validation-error: dimension.category FEATURE_LABEL is not allowed for TRACING monitors (it is a model's); use SPAN_ATTRIBUTE, LLM_EVAL, USER_ANNOTATION",
    );
  });

  it("a numeric metric over a text span field is refused", () => {
    expect(
      problem(() =>
        given([]).when(
          create({ ...base, dimension: { category: "SPAN_ATTRIBUTE", name: "status_code" } }),
        ),
      ),
    ).toBe("validation-error");
  });

  it("an update changes what it names and keeps the rest; type is fixed", () => {
    const [e] = given(created).when(update({ window_seconds: 60, notes: "n" }));
    expect(e).toMatchObject({
      type: "MonitorUpdated",
      data: { window_seconds: 60, notes: "n", name: "slow spans", metric: "P95" },
    });
    expect(problem(() => given(created).when(update({}, "DRIFT")))).toBe("validation-error");
    expect(given(created).when(update({}, "TRACING"))).toHaveLength(1);
  });

  it("a deleted monitor is 404 to every command", () => {
    const gone = [...created, ...given(created).when({ type: "DeleteMonitor", now })];
    expect(problem(() => given(gone).when(update({ name: "x" })))).toBe("resource-not-found");
    expect(problem(() => given(gone).when({ type: "DeleteMonitor", now }))).toBe(
      "resource-not-found",
    );
    expect(problem(() => given(gone).when(record(outcome("TRIGGERED"))))).toBe(
      "resource-not-found",
    );
  });
});

describe("monitor decider: evaluations", () => {
  it("a new monitor is NO_DATA: the first TRIGGERED notifies, CLEARED after it notifies", () => {
    expect(run(["TRIGGERED", "TRIGGERED", "CLEARED", "CLEARED"])).toEqual([
      "NO_DATA→TRIGGERED notify",
      "TRIGGERED→CLEARED notify",
    ]);
  });

  it("NO_DATA is a change of status that tells nobody, and keeps the alert", () => {
    expect(run(["TRIGGERED", "NO_DATA", "TRIGGERED", "NO_DATA", "CLEARED"])).toEqual([
      "NO_DATA→TRIGGERED notify",
      "TRIGGERED→NO_DATA",
      "NO_DATA→TRIGGERED",
      "TRIGGERED→NO_DATA",
      "NO_DATA→CLEARED notify",
    ]);
  });

  it("CLEARED without an alert before it tells nobody", () => {
    expect(run(["CLEARED", "NO_DATA", "CLEARED"])).toEqual([
      "NO_DATA→CLEARED",
      "CLEARED→NO_DATA",
      "NO_DATA→CLEARED",
    ]);
  });

  it("in a downtime the status is kept: no change, no notification", () => {
    expect(run(["DOWNTIME", "DOWNTIME", "TRIGGERED"])).toEqual(["NO_DATA→TRIGGERED notify"]);
  });

  it("with notifications disabled the changes are events that notify nobody", () => {
    expect(run(["TRIGGERED", "CLEARED"], { ...base, notifications_enabled: false })).toEqual([
      "NO_DATA→TRIGGERED",
      "TRIGGERED→CLEARED",
    ]);
  });

  it("a change carries the channels, the value, the bounds and the window", () => {
    const [e] = given(created).when(record(outcome("TRIGGERED")));
    expect(e).toMatchObject({
      type: "MonitorStatusChanged",
      data: {
        id: "m1",
        organization_id: "o1",
        channels: [{ type: "WEBHOOK", webhook_id: WEBHOOK }],
        value: 900,
        threshold: { single: { operator: "GREATER_THAN", value: 500 } },
        window_end: at,
        evaluation_id: "e1",
      },
    });
  });

  it("an evaluation of settings that changed since is stale", () => {
    const changed = [...created, ...given(created).when(update({ name: "other" }))];
    expect(() => given(changed).when(record(outcome("TRIGGERED")))).toThrow(StaleEvaluation);
  });
});

describe("monitor rules: thresholds", () => {
  const single = (operator: string, value = 10) =>
    resolveThreshold({ type: "MANUAL_SINGLE", operator: operator as never, value }, [])!;
  it("a single threshold triggers when the metric meets it, for every operator", () => {
    const cases: [string, number, string][] = [
      ["GREATER_THAN", 11, "TRIGGERED"],
      ["GREATER_THAN", 10, "CLEARED"],
      ["GREATER_THAN_OR_EQUAL", 10, "TRIGGERED"],
      ["GREATER_THAN_OR_EQUAL", 9, "CLEARED"],
      ["LESS_THAN", 9, "TRIGGERED"],
      ["LESS_THAN", 10, "CLEARED"],
      ["LESS_THAN_OR_EQUAL", 10, "TRIGGERED"],
      ["LESS_THAN_OR_EQUAL", 11, "CLEARED"],
      ["EQUALS", 10, "TRIGGERED"],
      ["EQUALS", 10.5, "CLEARED"],
      ["NOT_EQUALS", 10.5, "TRIGGERED"],
      ["NOT_EQUALS", 10, "CLEARED"],
    ];
    for (const [op, value, want] of cases)
      expect([op, value, judge(value, single(op))]).toEqual([op, value, want]);
  });

  it("a range holds the healthy values and triggers outside them, at its bounds by operator", () => {
    const range = (lo: string, hi: string) =>
      resolveThreshold(
        {
          type: "MANUAL_RANGE",
          lower: { operator: lo as never, value: 1 },
          upper: { operator: hi as never, value: 5 },
        },
        [],
      )!;
    const strict = range("GREATER_THAN", "LESS_THAN");
    const inclusive = range("GREATER_THAN_OR_EQUAL", "LESS_THAN_OR_EQUAL");
    expect([0, 1, 3, 5, 6].map((v) => judge(v, strict))).toEqual([
      "TRIGGERED",
      "TRIGGERED",
      "CLEARED",
      "TRIGGERED",
      "TRIGGERED",
    ]);
    expect([0, 1, 3, 5, 6].map((v) => judge(v, inclusive))).toEqual([
      "TRIGGERED",
      "CLEARED",
      "CLEARED",
      "CLEARED",
      "TRIGGERED",
    ]);
  });

  it("a range with lower above upper, or empty, is refused; its operators face the right way", () => {
    const range = (lower: object, upper: object) =>
      problemDetail(() =>
        checkSettings({ ...base, threshold: { type: "MANUAL_RANGE", lower, upper } as never }),
      );
    expect(range({ operator: "GREATER_THAN", value: 5 }, { operator: "LESS_THAN", value: 1 })).toBe(
      "validation-error: threshold.lower.value (5) must not be above threshold.upper.value (1)",
    );
    expect(
      range({ operator: "GREATER_THAN", value: 1 }, { operator: "LESS_THAN_OR_EQUAL", value: 1 }),
    ).toMatch(/range is empty/);
    expect(
      range(
        { operator: "GREATER_THAN_OR_EQUAL", value: 1 },
        { operator: "LESS_THAN_OR_EQUAL", value: 1 },
      ),
    ).toBe("ok");
    expect(range({ operator: "LESS_THAN", value: 1 }, { operator: "LESS_THAN", value: 2 })).toMatch(
      /threshold.lower.operator must be one of GREATER_THAN, GREATER_THAN_OR_EQUAL/,
    );
  });

  it("a dynamic threshold is centre ± multiplier × spread of the windows before", () => {
    const history = [10, 12, 14];
    expect(baselineOf("STDEV", history)).toEqual({ center: 12, deviation: Math.sqrt(8 / 3) });
    expect(baselineOf("MAD", [10, 12, 30])).toEqual({ center: 12, deviation: 2 });
    const above = resolveThreshold(
      { type: "DYNAMIC_SINGLE", calculation: "MAD", operator: "GREATER_THAN", multiplier: 3 },
      [10, 12, 30],
    );
    expect(above?.single).toEqual({ operator: "GREATER_THAN", value: 18 });
    const below = resolveThreshold(
      { type: "DYNAMIC_SINGLE", calculation: "MAD", operator: "LESS_THAN", multiplier: 3 },
      [10, 12, 30],
    );
    expect(below?.single).toEqual({ operator: "LESS_THAN", value: 6 });
    const range = resolveThreshold(
      {
        type: "DYNAMIC_RANGE",
        calculation: "MAD",
        lower: { operator: "GREATER_THAN", multiplier: 1 },
        upper: { operator: "LESS_THAN", multiplier: 2 },
      },
      [10, 12, 30],
    );
    expect([range?.lower?.value, range?.upper?.value]).toEqual([10, 16]);
    // Fewer than three windows with data: no threshold yet.
    expect(
      resolveThreshold(
        { type: "DYNAMIC_SINGLE", calculation: "STDEV", operator: "GREATER_THAN", multiplier: 1 },
        [1, 2],
      ),
    ).toBeUndefined();
  });

  it("a dynamic threshold has no EQUALS; its multiplier is above 0 and at most the limit", () => {
    const dyn = (operator: string, multiplier: number) =>
      problem(() =>
        checkSettings({
          ...base,
          threshold: {
            type: "DYNAMIC_SINGLE",
            calculation: "STDEV",
            operator,
            multiplier,
          } as never,
        }),
      );
    expect(dyn("EQUALS", 1)).toBe("validation-error");
    expect(dyn("GREATER_THAN", 0)).toBe("validation-error");
    expect(dyn("GREATER_THAN", 0.001)).toBe("none");
    expect(dyn("GREATER_THAN", LIMITS.MONITOR_MULTIPLIER_MAX)).toBe("none");
    expect(dyn("GREATER_THAN", LIMITS.MONITOR_MULTIPLIER_MAX + 0.5)).toBe("validation-error");
  });

  it("assess: no spans is NO_DATA, no values is NO_DATA, a short history NO_DATA with reasons", () => {
    const m = (spans: number, value: number | null, baseline: number[] = []) => ({
      spans,
      value,
      baseline,
    });
    expect(assess(base, m(0, null), now)).toMatchObject({
      status: "NO_DATA",
      reason: "no spans in the window",
    });
    expect(assess(base, m(3, null), now)).toMatchObject({
      status: "NO_DATA",
      reason: "no numeric values of latency_ms in the window",
    });
    expect(assess(base, m(3, 900), now)).toMatchObject({ status: "TRIGGERED", value: 900 });
    const dynamic: MonitorSettings = {
      ...base,
      threshold: {
        type: "DYNAMIC_SINGLE",
        calculation: "STDEV",
        operator: "GREATER_THAN",
        multiplier: 2,
      },
    };
    expect(assess(dynamic, m(3, 900, [1]), now)).toMatchObject({ status: "NO_DATA", value: 900 });
    expect(assess(dynamic, m(3, 900, [100, 110, 90]), now).status).toBe("TRIGGERED");
    expect(assess(dynamic, m(3, 105, [100, 110, 90]), now).status).toBe("CLEARED");
  });
});

describe("monitor rules: time", () => {
  it("the window ends delay_seconds before the evaluation and is window_seconds long", () => {
    expect(windowAt({ window_seconds: 60, delay_seconds: 30 }, now)).toEqual({
      start: new Date("2026-03-04T09:58:30.000Z"),
      end: new Date("2026-03-04T09:59:30.000Z"),
    });
  });

  it("a downtime covers its duration from its start, once or every frequency_days", () => {
    const once = {
      start: "2026-03-04T09:00:00.000Z",
      duration_seconds: 3600,
      frequency_days: null,
    };
    const daily = { ...once, frequency_days: 1 };
    const t = (s: string) => new Date(s);
    expect(isInDowntime(once, t("2026-03-04T08:59:59Z"))).toBe(false);
    expect(isInDowntime(once, t("2026-03-04T09:00:00Z"))).toBe(true);
    expect(isInDowntime(once, t("2026-03-04T09:59:59Z"))).toBe(true);
    expect(isInDowntime(once, t("2026-03-04T10:00:00Z"))).toBe(false);
    expect(isInDowntime(once, t("2026-03-05T09:30:00Z"))).toBe(false);
    expect(isInDowntime(daily, t("2026-03-05T09:30:00Z"))).toBe(true);
    expect(isInDowntime(daily, t("2026-03-05T10:30:00Z"))).toBe(false);
  });

  it("after an outage the next run is the first step after now: one catch-up, not one per window", () => {
    const s = { ...base, schedule: { enabled: true, cadence_seconds: 60, days_of_week: [] } };
    const due = new Date("2026-03-04T09:00:00.000Z");
    expect(nextRunAfter(s, due, new Date("2026-03-04T09:00:10.000Z"), 1)).toEqual(
      new Date("2026-03-04T09:01:00.000Z"),
    );
    // Three hours down: next is the first minute step after now, still aligned to the cadence.
    expect(nextRunAfter(s, due, new Date("2026-03-04T12:00:30.000Z"), 1)).toEqual(
      new Date("2026-03-04T12:01:00.000Z"),
    );
    // The deployment's floor wins over a shorter cadence.
    expect(nextRunAfter(s, due, due, 300)).toEqual(new Date("2026-03-04T09:05:00.000Z"));
    // Manual, or a disabled schedule: never.
    expect(nextRunAfter({ ...s, manual_evaluation_enabled: true }, due, due, 1)).toBeNull();
    expect(
      nextRunAfter(
        { ...s, schedule: { enabled: false, cadence_seconds: 60, days_of_week: [] } },
        due,
        due,
        1,
      ),
    ).toBeNull();
    // Default cadence: the window's length.
    expect(nextRunAfter(base, due, due, 1)).toEqual(new Date("2026-03-04T10:00:00.000Z"));
  });

  it("on days not listed the next run waits for the next listed day (UTC)", () => {
    // 2026-03-04 is a Wednesday (3); only Fridays (5).
    const s = { ...base, schedule: { enabled: true, cadence_seconds: 3600, days_of_week: [5] } };
    expect(nextRunAfter(s, now, now, 1)).toEqual(new Date("2026-03-06T00:00:00.000Z"));
  });
});

describe("monitor rules: limits at their edges", () => {
  const ok = (s: Partial<MonitorSettings>) => problemDetail(() => checkSettings({ ...base, ...s }));
  const text = (n: number) => "x".repeat(n);
  it("name: 0, 1, max, max+1 characters", () => {
    expect(ok({ name: "" })).toBe("validation-error: name must not be empty");
    expect(ok({ name: "x" })).toBe("ok");
    expect(ok({ name: text(LIMITS.MONITOR_NAME_MAX) })).toBe("ok");
    expect(ok({ name: text(LIMITS.MONITOR_NAME_MAX + 1) })).toBe(
      `validation-error: name must be at most ${LIMITS.MONITOR_NAME_MAX} characters`,
    );
  });
  it("notes: 0, 1, max, max+1 characters", () => {
    expect(ok({ notes: "" })).toBe("ok");
    expect(ok({ notes: "x" })).toBe("ok");
    expect(ok({ notes: text(LIMITS.MONITOR_NOTES_MAX) })).toBe("ok");
    expect(ok({ notes: text(LIMITS.MONITOR_NOTES_MAX + 1) })).toMatch(/notes must be at most/);
  });
  it("evaluation window: 0, 1, max, max+1 seconds; delay 0 and max+1", () => {
    expect(ok({ window_seconds: 0 })).toBe(
      `validation-error: evaluation_window_length_seconds must be an integer from 1 to ${LIMITS.MONITOR_WINDOW_SECONDS_MAX}`,
    );
    expect(ok({ window_seconds: 1 })).toBe("ok");
    expect(ok({ window_seconds: LIMITS.MONITOR_WINDOW_SECONDS_MAX })).toBe("ok");
    expect(ok({ window_seconds: LIMITS.MONITOR_WINDOW_SECONDS_MAX + 1 })).toMatch(
      /evaluation_window/,
    );
    expect(ok({ delay_seconds: 0 })).toBe("ok");
    expect(ok({ delay_seconds: LIMITS.MONITOR_DELAY_SECONDS_MAX })).toBe("ok");
    expect(ok({ delay_seconds: LIMITS.MONITOR_DELAY_SECONDS_MAX + 1 })).toMatch(/delay_seconds/);
  });
  it("cadence: 0, 1, max, max+1 seconds", () => {
    const cadence = (n: number) =>
      ok({ schedule: { enabled: true, cadence_seconds: n, days_of_week: [] } });
    expect(cadence(0)).toMatch(/cadence_seconds must be an integer from 1/);
    expect(cadence(1)).toBe("ok");
    expect(cadence(LIMITS.MONITOR_CADENCE_SECONDS_MAX)).toBe("ok");
    expect(cadence(LIMITS.MONITOR_CADENCE_SECONDS_MAX + 1)).toMatch(/cadence_seconds/);
  });
  it("filters: 0, 1, max, max+1; values 0, 1, max, max+1", () => {
    const filter = (values: string[]) => ({
      dimension: { category: "SPAN_ATTRIBUTE" as const, name: "status_code" },
      operator: "EQUALS" as const,
      values,
    });
    const filters = (n: number) => ok({ filters: Array.from({ length: n }, () => filter(["OK"])) });
    expect(filters(0)).toBe("ok");
    expect(filters(1)).toBe("ok");
    expect(filters(LIMITS.MONITOR_FILTERS_MAX)).toBe("ok");
    expect(filters(LIMITS.MONITOR_FILTERS_MAX + 1)).toMatch(/filters must contain at most/);
    const values = (n: number) =>
      ok({ filters: [filter(Array.from({ length: n }, (_, i) => `v${i}`))] });
    expect(values(0)).toMatch(/values must contain at least 1/);
    expect(values(1)).toBe("ok");
    expect(values(LIMITS.MONITOR_FILTER_VALUES_MAX)).toBe("ok");
    expect(values(LIMITS.MONITOR_FILTER_VALUES_MAX + 1)).toMatch(/values must contain at most/);
  });
  it("filters: numeric operators take one number; TOP_N and SIMILAR_TO are refused", () => {
    const f = (operator: string, values: string[]) =>
      ok({
        filters: [
          {
            dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
            operator: operator as never,
            values,
          },
        ],
      });
    expect(f("GREATER_THAN", ["100"])).toBe("ok");
    expect(f("GREATER_THAN", ["fast"])).toMatch(/must be a number/);
    expect(f("GREATER_THAN", ["1", "2"])).toMatch(/exactly one number/);
    expect(f("TOP_N", ["3"])).toMatch(/TOP_N is not supported for TRACING monitors/);
    expect(f("SIMILAR_TO", ["x"])).toMatch(/SIMILAR_TO is not supported/);
  });
  it("channels: 0, 1, max, max+1; addresses checked; no channel twice", () => {
    const email = (i: number) => ({ type: "EMAIL" as const, email_address: `o${i}@example.com` });
    const channels = (n: number) => ok({ channels: Array.from({ length: n }, (_, i) => email(i)) });
    expect(channels(0)).toBe("ok");
    expect(channels(1)).toBe("ok");
    expect(channels(LIMITS.MONITOR_CHANNELS_MAX)).toBe("ok");
    expect(channels(LIMITS.MONITOR_CHANNELS_MAX + 1)).toMatch(/at most/);
    expect(ok({ channels: [{ type: "EMAIL", email_address: "nobody" }] })).toMatch(
      /e-mail address/,
    );
    expect(ok({ channels: [email(1), email(1)] })).toMatch(/names a channel given before/);
    expect(ok({ channels: [{ type: "WEBHOOK", webhook_id: "nope" }] })).toMatch(
      /must be a webhook id/,
    );
  });
  it("downtime: a duration of 0 and one longer than its period are refused", () => {
    const d = (duration_seconds: number, frequency_days: number | null) =>
      ok({ downtime: { start: at, duration_seconds, frequency_days } });
    expect(d(0, null)).toMatch(/duration_seconds must be an integer from 1/);
    expect(d(1, null)).toBe("ok");
    expect(d(86_400, 1)).toBe("ok");
    expect(d(86_401, 1)).toMatch(/duration_seconds/);
    expect(d(60, 0)).toMatch(/frequency_days/);
    expect(d(60, LIMITS.MONITOR_DOWNTIME_FREQUENCY_DAYS_MAX + 1)).toMatch(/frequency_days/);
  });
});
