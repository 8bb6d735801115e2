import {
  metrics,
  propagation,
  context,
  trace,
  type TextMapGetter,
  type TextMapSetter,
  type Context,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  TracerProvider,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricReader,
} from "@opentelemetry/sdk-metrics";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";

export interface TelemetryOptions {
  service: string;
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
  /** Extra metric readers, e.g. an in-memory one in tests. */
  metricReaders?: MetricReader[];
  /** OTLP/HTTP endpoint; exporters are installed only when it is set. */
  otlpEndpoint?: string | undefined;
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

/** Installs the process-wide tracer and meter providers; call once, first thing in main. */
export function initTelemetry(opts: TelemetryOptions): Telemetry {
  const resource = resourceFromAttributes({ "service.name": opts.service });
  const processors = [...(opts.spanProcessors ?? [])];
  if (opts.otlpEndpoint) {
    processors.push(
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${opts.otlpEndpoint}/v1/traces` }),
      }),
    );
  }
  // With nothing to hand spans to, none is recorded: spans still carry ids (logs, events and
  // onward calls keep their trace context), but attributes, events and timings cost nothing.
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: processors,
    ...(processors.length === 0 ? { sampler: new AlwaysOffSampler() } : {}),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);

  const meterProvider = new MeterProvider({
    resource,
    readers: [
      ...(opts.metricReaders ?? []),
      ...(opts.otlpEndpoint
        ? [
            new PeriodicExportingMetricReader({
              exporter: new OTLPMetricExporter({ url: `${opts.otlpEndpoint}/v1/metrics` }),
            }),
          ]
        : []),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);

  return {
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      context.disable();
      propagation.disable();
      metrics.disable();
    },
  };
}

/** Carrier adapters so trace context crosses HTTP, gRPC metadata and NATS headers the same way. */
export interface Carrier {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

const getter: TextMapGetter<Carrier> = {
  get: (c, k) => c.get(k),
  keys: () => ["traceparent", "tracestate"],
};
const setter: TextMapSetter<Carrier> = { set: (c, k, v) => c.set(k, v) };

export function injectContext(carrier: Carrier, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier, setter);
}

export function extractContext(carrier: Carrier, ctx: Context = context.active()): Context {
  return propagation.extract(ctx, carrier, getter);
}
