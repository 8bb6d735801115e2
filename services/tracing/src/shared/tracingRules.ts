import { DomainError, type ResourceAccess } from "@argus/platform";

/** Spans are read and written through their project: an unreadable project is 404. */
export const PROJECT_ACCESS = {
  label: "project",
  read: "PROJECT_READ",
} as const satisfies ResourceAccess;

export const invalid = (detail: string) => new DomainError("invalid-request", detail);
export const unprocessable = (detail: string) => new DomainError("validation-error", detail);

const DAY = 86_400_000;

/** The public API's default windows, per operation. */
export const WINDOW_DEFAULTS = {
  /** list_spans, list_traces: a week before the end. */
  list: 7 * DAY,
  /** annotate_spans: 31 days before the end. */
  annotate: 31 * DAY,
  /** delete_spans: two years ago (independent of the end). */
  delete: 2 * 365 * DAY,
} as const;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Whether the date of an RFC 3339 text is on the calendar: Date.parse rolls 2026-02-30 over
 * into March, and Postgres refuses it and year 0 (a 500 where the text reaches a query).
 */
function onCalendar(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return (
    y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
  );
}

/** Whether `value` is an RFC 3339 date-time Postgres and Date both read alike. */
export const isRfc3339 = (value: string): boolean =>
  RFC3339.test(value) && onCalendar(value) && !Number.isNaN(Date.parse(value));

function instant(value: string, field: string): number {
  const ms = isRfc3339(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalid(`${field} must be an ISO 8601 date-time`);
  return ms;
}

/**
 * A request's window as RFC 3339 text: empty bounds take the operation's defaults (the end
 * `now`, the caller's clock; the start `before` the end, or `before` now when the start is
 * independent of it). A start after the end is a 400.
 */
export function windowOf(
  start: string,
  end: string,
  before: number,
  now: number,
  independent = false,
): { start: string; end: string } {
  const endMs = end ? instant(end, "end_time") : now;
  const startMs = start ? instant(start, "start_time") : (independent ? now : endMs) - before;
  if (startMs > endMs) throw invalid("start_time must not be after end_time");
  return { start: exact(start, startMs), end: exact(end, endMs) };
}

// Keeps a given bound's sub-millisecond digits: an inclusive bound must include what it names
// and nothing before (a start cut to the millisecond took in spans up to 999 µs early).
const exact = (given: string, ms: number) => (given ? given : new Date(ms).toISOString());
