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
  /** Whether a line at `level` would be written: a line costly to gather can be skipped. */
  enabled(level: Level): boolean;
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
    child: (fields) => new LazyChild(p, { ...fields }),
    enabled: (level) => p.isLevelEnabled(level),
  };
}

/**
 * A child made when it first writes a line. Every request and every call gets one, and most
 * never write (at `warn`, none on a successful request): a pino child redacts and serializes
 * its bindings when it is made, which profiled at several µs per call on the GET path. A
 * child's child carries both sets of fields in one binding (a later one wins a repeated key).
 */
class LazyChild implements Logger {
  readonly #parent: Pino;
  readonly #fields: Record<string, unknown>;
  #made: Pino | undefined;
  constructor(parent: Pino, fields: Record<string, unknown>) {
    this.#parent = parent;
    this.#fields = fields;
  }
  #write(level: Level, msg: string, fields: Record<string, unknown> | undefined): void {
    if (!this.#parent.isLevelEnabled(level)) return;
    // pino applies the `bindings` formatter to the root's bindings only, not a child's.
    this.#made ??= this.#parent.child(redact(this.#fields) as Record<string, unknown>);
    this.#made[level](fields ?? {}, msg);
  }
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.#write("debug", msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.#write("info", msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.#write("warn", msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.#write("error", msg, fields);
  }
  enabled(level: Level): boolean {
    return this.#parent.isLevelEnabled(level);
  }
  child(more: Record<string, unknown>): Logger {
    return this.#made
      ? new LazyChild(this.#made, { ...more })
      : new LazyChild(this.#parent, { ...this.#fields, ...more });
  }
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
