import { metrics, type Attributes, type Histogram, type MeterProvider } from "@opentelemetry/api";

// HTTP's own (http.server.request.duration, by route) come from the HTTP instrumentation; the
// gRPC instrumentation records none.
const DURATIONS = {
  "rpc.server.duration": "Duration of gRPC calls served",
  "rpc.client.duration": "Duration of gRPC calls made, retries included",
} as const;

export type DurationMetric = keyof typeof DURATIONS;

// Instruments are bound to the provider that made them: one taken before a provider is
// registered (tests register theirs late) would stay a no-op, so they are looked up per provider.
const byProvider = new WeakMap<MeterProvider, Map<DurationMetric, Histogram>>();

/** Records a duration in seconds, per the OpenTelemetry semantic conventions' names. */
export function recordDuration(
  name: DurationMetric,
  seconds: number,
  attributes: Attributes,
): void {
  const provider = metrics.getMeterProvider();
  let histograms = byProvider.get(provider);
  if (!histograms) byProvider.set(provider, (histograms = new Map()));
  let h = histograms.get(name);
  if (!h) {
    h = provider
      .getMeter("argus")
      .createHistogram(name, { unit: "s", description: DURATIONS[name] });
    histograms.set(name, h);
  }
  h.record(seconds, attributes);
}
