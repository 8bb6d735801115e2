import type { MonitorFields } from "@argus/proto/tracing/v1/monitors";
import { uniqueName } from "@argus/testkit";

/**
 * A TRACING monitor of the spans' P95 latency_ms, triggered above `threshold`, named
 * `<prefix>_<random>`; `over` replaces fields (the window, the schedule, …).
 */
export const latencyMonitor = (
  prefix: string,
  threshold: number,
  over: Partial<MonitorFields> = {},
): MonitorFields => ({
  name: uniqueName(prefix),
  type: "TRACING",
  metric: "P95",
  dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
  threshold: {
    type: "MANUAL_SINGLE",
    operator: "GREATER_THAN",
    value: threshold,
    multiplier: 0,
    calculation: "",
  },
  clearNotes: false,
  clearDowntime: false,
  clearSchedule: false,
  ...over,
});
