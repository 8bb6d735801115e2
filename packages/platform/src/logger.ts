import { trace } from "@opentelemetry/api";

export type Level = "debug" | "info" | "warn" | "error";
const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

// Keys whose values must never reach a log line, whatever code passes them in.
const SECRET_KEY = /authorization|api[_-]?key|secret|password|pepper|token|cookie|hash/i;

function redact(value: unknown, depth = 0): unknown {
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
  write?: (line: string) => void;
}

export function createLogger(opts: LoggerOptions, bound: Record<string, unknown> = {}): Logger {
  const min = rank[opts.level ?? "info"];
  const write = opts.write ?? ((line: string) => process.stdout.write(line + "\n"));
  const log = (level: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (rank[level] < min) return;
    const span = trace.getActiveSpan()?.spanContext();
    const record = {
      time: new Date().toISOString(),
      level,
      service: opts.service,
      msg,
      ...(span ? { trace_id: span.traceId, span_id: span.spanId } : {}),
      ...(redact({ ...bound, ...fields }) as Record<string, unknown>),
    };
    write(JSON.stringify(record, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
  };
  return {
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    warn: (m, f) => log("warn", m, f),
    error: (m, f) => log("error", m, f),
    child: (fields) => createLogger(opts, { ...bound, ...fields }),
  };
}
