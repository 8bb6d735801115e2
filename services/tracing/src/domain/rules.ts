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

function instant(value: string, field: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalid(`${field} must be an ISO 8601 date-time`);
  return ms;
}

/**
 * A request's window as RFC 3339 text: empty bounds take the operation's defaults (the end
 * now; the start `before` the end, or `before` now when the start is independent of it). A
 * start after the end is a 400.
 */
export function windowOf(
  start: string,
  end: string,
  before: number,
  now = Date.now(),
  independent = false,
): { start: string; end: string } {
  const endMs = end ? instant(end, "end_time") : now;
  const startMs = start ? instant(start, "start_time") : (independent ? now : endMs) - before;
  if (startMs > endMs) throw invalid("start_time must not be after end_time");
  return { start: new Date(startMs).toISOString(), end: exact(end, endMs) };
}

// Keeps a given end's sub-millisecond digits: an inclusive bound must include what it names.
const exact = (given: string, ms: number) => (given ? given : new Date(ms).toISOString());
