import type { Pool, PoolClient } from "pg";
import type { QueryExpression } from "@argus/filter";
import type { BatchLimits } from "@argus/platform";
import type { ColumnBatch } from "@argus/proto/dataset/v1/bulk";
import type { SpanRecord } from "../spans/spanRecord.ts";

/** A time window of span start times: `start` inclusive; `end` inclusive unless said. */
export interface Window {
  start: string;
  end: string;
  endExclusive?: boolean;
}

/** A compiled filter over one span row (alias given), with its parameters from `firstParam`. */
export type SpanPredicate = (
  alias: string,
  firstParam: number,
) => { sql: string; params: unknown[] };

/** A list page position: the last row of the previous page. */
export interface SpanPosition {
  startTime: string;
  traceId: string;
  spanId: string;
}

/** A stored span as queries read it: times as RFC 3339 text (microseconds kept). */
export interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message: string;
  attributes: Record<string, unknown>;
  events: unknown[];
  annotations: unknown[] | null;
  trace_annotations: unknown[] | null;
  evaluations: unknown[] | null;
}

/**
 * One column of an export: a span field (times as integer nanoseconds since the epoch and the
 * latency as milliseconds, both fixed-width: `TextColumn.fixed`, int64 and float64; the others
 * as text), or an attribute's value, as text. `json: false` reads a string
 * as itself and any other value as its JSON text, for attributes whose values have one JSON
 * spelling (strings, booleans, integers); `json: true` reads the value's JSON text as the
 * store writes it, for the caller to respell (numbers with a fraction, objects, arrays).
 */
export type ExportColumn =
  | {
      field:
        | "span_id"
        | "trace_id"
        | "parent_id"
        | "name"
        | "kind"
        | "start_ns"
        | "end_ns"
        | "latency_ms"
        | "status_code"
        | "status_message";
    }
  | { attribute: string; json: boolean };

/** What admits a trace or session: the expression over named filters, each true when a span matches. */
export interface UnitAdmission {
  expression: QueryExpression;
  filters: ReadonlyMap<string, SpanPredicate>;
}

/**
 * A trace (its root span) or a session (its newest span carrying `session.id`) in a walk,
 * newest first; the row's position is the page position.
 */
export interface UnitHead {
  unit_id: string;
  start_time: string;
  trace_id: string;
  span_id: string;
  /** Names of the evaluations on the root span (TRACE; SESSION: see `sessions`). */
  evaluated: string[];
}

/** A session's traces in a window, and the root span of its earliest one (null: none there). */
interface SessionTraces {
  traceIds: string[];
  rootSpanId: string | null;
  evaluated: string[];
}

/** A page of a project's spans (or root spans) in a window: `limit` rows after `after`. */
export interface SpanPageQuery {
  projectId: string;
  window: Window;
  filter?: SpanPredicate;
  after?: SpanPosition;
  limit: number;
}

/**
 * Where spans live. Postgres is the embedded default (storage/postgres.ts); a columnar engine
 * can take over behind this interface. Writes take the transaction of the command that
 * records their event, so a batch and its SpansReceived commit together.
 */
/** One stored span's `metadata` attribute, and where its row is. */
export interface SpanMetadataRow {
  traceId: string;
  spanId: string;
  /** Postgres's text of the row's start time (exact to the microsecond). */
  startTime: string;
  metadata: unknown;
}

export interface SpanStore {
  /**
   * Makes sure every day of `days` can be written (partitions, or the engine's equivalent).
   * `recheck`: do not trust what this process saw before (another one may have dropped a day).
   */
  prepare(days: readonly number[], recheck?: boolean): Promise<void>;
  /** Stores the spans of one project; a span already stored is skipped. Returns what was new. */
  insert(
    tx: PoolClient,
    projectId: string,
    spans: readonly SpanRecord[],
  ): Promise<{ count: number; minStart: string; maxStart: string }>;
  /** Newest first; `limit` rows after `after`. */
  listSpans(q: SpanPageQuery): Promise<SpanRow[]>;
  /**
   * The spans listSpans would walk (every page, in its order) as batches of `columns` in Arrow
   * Utf8 layout (times and the latency fixed-width, ExportColumn), read by one statement (one snapshot), batch by batch as the consumer takes
   * them; leaving early stops the read.
   */
  exportSpans(
    q: {
      projectId: string;
      window: Window;
      filter?: SpanPredicate;
      columns: readonly ExportColumn[];
    },
    limits: BatchLimits,
  ): AsyncGenerator<ColumnBatch>;
  /** How many spans listSpans would walk (every page) for the same project, window and filter. */
  countSpans(q: { projectId: string; window: Window; filter?: SpanPredicate }): Promise<number>;
  /**
   * The attribute keys the project's spans hold on the days the window touches, sorted, each
   * with the kinds of JSON values it holds there (ColumnKind bits: string 1, boolean 2, integer
   * 4, other number 8, object or array 16; null none), read from the catalog ingestion keeps,
   * not from the spans: a superset of the keys of the spans listSpans would walk (the filter
   * and the window's edges within a day are not applied, and a key stays when its spans are
   * deleted), whose extra keys are all-null columns.
   */
  attributeKeys(q: {
    projectId: string;
    window: Window;
    filter?: SpanPredicate;
  }): Promise<{ key: string; kinds: number }[]>;
  /** Root spans newest first, each of a trace with a span in the window that matches. */
  listRoots(q: SpanPageQuery): Promise<SpanRow[]>;
  /**
   * Traces (one per root span) or sessions (`session.id`) with a span in the window, newest
   * first, `limit` after `after`, those `admit` admits (over the unit's spans in the window).
   */
  listUnits(q: {
    projectId: string;
    granularity: "TRACE" | "SESSION";
    window: Window;
    admit?: UnitAdmission;
    after?: SpanPosition;
    limit: number;
  }): Promise<UnitHead[]>;
  /** Each session's traces in the window (at most `maxTraces`) and its earliest root span. */
  sessions(
    projectId: string,
    sessionIds: readonly string[],
    window: Window,
    maxTraces: number,
  ): Promise<Map<string, SessionTraces>>;
  /**
   * Up to `perUnit` spans of each unit's traces in the window, oldest first, each with the ids
   * of the `filters` it matches.
   */
  unitSpans(
    projectId: string,
    units: readonly { id: string; traceIds: readonly string[] }[],
    window: Window,
    perUnit: number,
    filters: ReadonlyMap<string, SpanPredicate>,
  ): Promise<Map<string, (SpanRow & { matches: string[] })[]>>;
  /** Up to `perTrace` spans of each trace in the window, oldest first. */
  spansOfTraces(
    projectId: string,
    traceIds: readonly string[],
    window: Window,
    perTrace: number,
  ): Promise<Map<string, SpanRow[]>>;
  /** Which of `ids` are spans (or traces) of the project in the window. */
  present(
    client: Pool | PoolClient,
    projectId: string,
    kind: "span" | "trace",
    ids: readonly string[],
    window: Window,
  ): Promise<Set<string>>;
  /** Which of `spanIds` are root spans of the project in the window, and their trace ids. */
  tracesOfRoots(
    client: Pool | PoolClient,
    projectId: string,
    spanIds: readonly string[],
    window: Window,
  ): Promise<Map<string, string>>;
  /**
   * The `metadata` attribute of these spans in the window (undefined: none), each row locked
   * for the rest of `tx`; a span id of several rows (traces) has each.
   */
  metadataOf(
    tx: PoolClient,
    projectId: string,
    spanIds: readonly string[],
    window: Window,
  ): Promise<SpanMetadataRow[]>;
  /** Sets the `metadata` attribute of these rows (as metadataOf answered them). */
  setMetadata(tx: PoolClient, projectId: string, rows: readonly SpanMetadataRow[]): Promise<void>;
  /** Deletes these spans in the window; answers the ids deleted. */
  delete(
    tx: PoolClient,
    projectId: string,
    spanIds: readonly string[],
    window: Window,
  ): Promise<string[]>;
  /** Everything of a project (deleted in the catalog). */
  dropProject(tx: PoolClient, projectId: string): Promise<void>;
  /** Retention: drops whole days before `day`; answers how many. */
  dropDaysBefore(day: number): Promise<number>;
}
