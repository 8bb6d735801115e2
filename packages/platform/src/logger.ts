import { isSpanContextValid, trace } from "@opentelemetry/api";
import { pino, stdTimeFunctions, type DestinationStream, type Logger as Pino } from "pino";

export type Level = "debug" | "info" | "warn" | "error";

/** What the code logs through: one JSON object per line on stdout (pino underneath). */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

// Keys whose values must never reach a log line, whatever code passes them in. A pattern over
// key names rather than pino's list of paths: a secret nested under any key is caught too.
const SECRET_KEY = /authorization|api[_-]?key|secret|password|pepper|token|cookie|hash/i;

function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "bigint") return value.toString();
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  return out;
}

export interface LoggerOptions {
  service: string;
  level?: Level;
  /** Where each line goes (without its newline); default stdout. */
  write?: (line: string) => void;
}

function wrap(p: Pino): Logger {
  return {
    debug: (m, f) => p.debug(f ?? {}, m),
    info: (m, f) => p.info(f ?? {}, m),
    warn: (m, f) => p.warn(f ?? {}, m),
    error: (m, f) => p.error(f ?? {}, m),
    child: (fields) => wrap(p.child(fields)),
  };
}

/**
 * JSON lines: `time` (ISO 8601), `level` (its name), `service`, `msg`, the fields, and the
 * active span's `trace_id` and `span_id` when the call runs inside one.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const write = opts.write;
  const destination: DestinationStream | undefined = write
    ? { write: (line: string) => write(line.endsWith("\n") ? line.slice(0, -1) : line) }
    : undefined;
  const options = {
    level: opts.level ?? "info",
    base: { service: opts.service },
    timestamp: stdTimeFunctions.isoTime,
    formatters: {
      level: (label: string) => ({ level: label }),
      bindings: (bindings: Record<string, unknown>) => redact(bindings) as Record<string, unknown>,
      log: (fields: Record<string, unknown>) => redact(fields) as Record<string, unknown>,
    },
    mixin: () => {
      const span = trace.getActiveSpan()?.spanContext();
      return span && isSpanContextValid(span)
        ? { trace_id: span.traceId, span_id: span.spanId }
        : {};
    },
  };
  return wrap(destination ? pino(options, destination) : pino(options));
}
