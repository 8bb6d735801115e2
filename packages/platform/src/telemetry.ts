import {
  INVALID_SPAN_CONTEXT,
  context,
  createContextKey,
  trace,
  type Context,
  type Span,
} from "@opentelemetry/api";
import { RPCType, getRPCMetadata } from "@opentelemetry/core";
import type { Instrumentation } from "@opentelemetry/instrumentation";

// OpenTelemetry for a whole process, through @opentelemetry/sdk-node: one NodeSDK per process,
// configured by the standard OTEL_* variables, with the instrumentations of HTTP/Express, gRPC
// and pg. It starts from `telemetryRegister.ts`, which each process's start command imports
// (`node --import`) before its entry point: instrumenting a module takes a hook installed before
// the module is first imported.

type Env = Readonly<Record<string, string | undefined>>;

const isTrue = (v: string | undefined) => v?.trim().toLowerCase() === "true";

/**
 * Whether this process runs the SDK: only when what it records has somewhere to go, i.e. an
 * OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or a
 * traces exporter named in `OTEL_TRACES_EXPORTER` (e.g. `console`, or `otlp` to its default
 * endpoint), and `OTEL_SDK_DISABLED` is not `true`. Otherwise nothing is hooked and no span,
 * trace id or metric is made: the instrumentations cost CPU on every request even when nothing
 * is exported, and a process without an exporter keeps the cost it had before the SDK
 * (bench/README.md).
 */
export function telemetryEnabled(env: Env): boolean {
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s && s !== "none");
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ||
    exporters.length > 0,
  );
}

/**
 * The process's name, the default `service.name`: `services/<name>/src/main.ts` is `<name>`,
 * any other entry point its file name (`scripts/migrate.ts` is `migrate`).
 */
export function processName(entry: string | undefined): string {
  const path = (entry ?? "").replaceAll("\\", "/");
  const service = /(?:^|\/)services\/([^/]+)\/src\/main\.[cm]?[jt]s$/.exec(path);
  if (service) return service[1]!;
  const file = path
    .split("/")
    .pop()
    ?.replace(/\.[cm]?[jt]s$/, "");
  return file || "argus";
}

// The packages the instrumentations patch; the import hook intercepts these alone, so it never
// rewrites the project's own (type-stripped) modules.
const INSTRUMENTED = ["http", "https", "express", "@grpc/grpc-js", "pg", "pg-pool"];

/**
 * The statement name `tracedQuery` gives (`@argus/eventstore`): the pg instrumentation names its
 * span after it (`db.query.summary`), so a span says which statement of the code it was.
 */
const QUERY_SUMMARY = createContextKey("argus.db.query.summary");

/** `ctx` carrying a statement's name for the pg instrumentation's span. */
export const withQuerySummary = (ctx: Context, summary: string): Context =>
  ctx.setValue(QUERY_SUMMARY, summary);

/**
 * The span of the work in progress (an instrumentation's: an HTTP request's, a gRPC call's), or
 * one that records nothing when there is none (no SDK).
 */
export const currentSpan = (): Span =>
  trace.getActiveSpan() ?? trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Names the HTTP request being served after its route template (`/v2/spaces/{space_id}`): the
 * HTTP instrumentation names its SERVER span `<method> <route>`, and labels its
 * `http.server.request.duration`, with it when the response ends.
 */
export function setHttpRoute(route: string): void {
  const rpc = getRPCMetadata(context.active());
  if (rpc?.type === RPCType.HTTP) rpc.route = route;
}

/** Probes are asked every few seconds by the orchestrator: not worth a trace each. */
const PROBE_PATHS = new Set(["/healthz", "/readyz"]);

/** The instrumentations every Argus process runs, configured for it. */
async function instrumentations(): Promise<Instrumentation[]> {
  const [http, express, grpc, pg] = await Promise.all([
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-express"),
    import("@opentelemetry/instrumentation-grpc"),
    import("@opentelemetry/instrumentation-pg"),
  ]);
  return [
    new http.HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => PROBE_PATHS.has((req.url ?? "").split("?")[0]!),
    }),
    // Middleware and routers are the gateway's plumbing; its route handlers keep a span.
    new express.ExpressInstrumentation({
      ignoreLayersType: [express.ExpressLayerType.MIDDLEWARE, express.ExpressLayerType.ROUTER],
    }),
    new grpc.GrpcInstrumentation(),
    new pg.PgInstrumentation({
      // Statements outside any traced work (the relay's and work loops' polls) are not traced:
      // each would be a trace of its own, every few hundred milliseconds.
      requireParentSpan: true,
      // Only the parameterised text is recorded (the default), never the values.
      requestHook: (span: Span) => {
        const summary = context.active().getValue(QUERY_SUMMARY);
        if (typeof summary !== "string") return;
        span.updateName(summary);
        span.setAttribute("db.query.summary", summary);
      },
    }),
  ];
}

interface Shutdown {
  shutdown(): Promise<void>;
}
const RUNNING = Symbol.for("argus.telemetry.sdk");
const holder = globalThis as { [RUNNING]?: Shutdown };

/**
 * Starts the SDK if `telemetryEnabled(env)`; returns whether it did. Must run before any
 * instrumented module is imported (`telemetryRegister.ts`). `service.name` is
 * `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`), else `processName`.
 */
export async function startTelemetry(
  env: Env = process.env,
  entry: string | undefined = process.argv[1],
): Promise<boolean> {
  if (holder[RUNNING] || !telemetryEnabled(env)) return false;
  const { register } = await import("import-in-the-middle/register-hooks.mjs");
  register({ include: INSTRUMENTED });
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const named =
    Boolean(env.OTEL_SERVICE_NAME?.trim()) ||
    /(?:^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "");
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: processName(entry) }),
    instrumentations: await instrumentations(),
  });
  sdk.start();
  holder[RUNNING] = sdk;
  return true;
}

/** Whether this process runs the SDK (its instrumentations are in place). */
export const telemetryRunning = (): boolean => holder[RUNNING] !== undefined;

/** Flushes and stops the SDK, if this process runs it; call last, before exiting. */
export async function shutdownTelemetry(): Promise<void> {
  const sdk = holder[RUNNING];
  delete holder[RUNNING];
  await sdk?.shutdown().catch(() => undefined);
}
