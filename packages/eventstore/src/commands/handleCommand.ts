import { randomUUID } from "node:crypto";
import type { PoolClient, QueryResult, QueryResultRow } from "pg";
import {
  DomainError,
  inOneWrite,
  isUuid,
  currentCallSignal,
  currentRequestKey,
  systemClock,
  type Clock,
} from "@argus/platform";
import { appendToStream, type ExpectedVersion } from "../streams/appendToStream.ts";
import { fold, snapshotTag, type Decider, type DomainEvent } from "./decider.ts";
import { readBack, type ProjectionStatement } from "./projectionStatement.ts";
import { CommitOutcomeUnknownError, ConcurrencyError } from "../errors.ts";
import type { EventStore, EventStoreTransaction } from "../streams/eventStore.ts";
import { runStatement, tracedQuery } from "../schema/tracedQuery.ts";
import { loadStream, saveSnapshot } from "../streams/snapshots.ts";
import type { EventMetadata } from "../types.ts";
import { recordRequest } from "../requests/appliedRequests.ts";

/**
 * An event a command appends, as its projection sees it: the decided event, and the id of its
 * row, so a projection may read a large event's data from the row in the same transaction
 * instead of having it sent to Postgres a second time. The projection's statements are sent
 * right behind the append's, before it answers (`commandScope`; a statement projection of a
 * lone event is part of it): the row is there when they run, but nothing the store assigns (a
 * position) is known yet.
 */
export interface AppendedEvent extends DomainEvent {
  readonly eventId: string;
}

/**
 * A service's inline projections: every event a command appends goes through them, in the
 * transaction of `client`, the store's tables in `schema`.
 */
export interface Project {
  (client: PoolClient, events: readonly AppendedEvent[], schema: string): Promise<void>;
  /**
   * The events' projections as one statement each, when every one is such
   * (`StatementProjection`); undefined otherwise.
   */
  statements?: (events: readonly AppendedEvent[]) => readonly ProjectionStatement[] | undefined;
}

/** What a decision left behind: its events, the state after them and the stream's version. */
export interface Decision<State, Event extends DomainEvent> {
  events: readonly Event[];
  state: State;
  version: number;
}

declare const rowLocked: unique symbol;

/**
 * Proof that the command's transaction holds the row lock of `table`'s row `id` (taken by
 * `lockRow`, with `SELECT … FOR UPDATE`), and the row as it read it. Nothing else makes one,
 * and it is good only in the scope that took it.
 */
export interface RowLock<Row = unknown> {
  readonly table: string;
  readonly id: string;
  readonly row: Row;
  readonly [rowLocked]: true;
}

/** The transaction of one command, which may decide on several streams atomically. */
export interface CommandScope {
  readonly client: PoolClient;
  /**
   * Reads the stream, folds it, decides, appends at exactly the version read and projects.
   * A stream that moves on meanwhile fails the append, and the whole command runs again.
   * `command` may be built from facts read after the stream (rows of this service's own
   * tables, e.g. a queue's records): any commit to the stream after that read fails the
   * append, so the decision never rests on facts older than the version it appends at.
   */
  decide<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: CommandInput<State, Command>,
    metadata: EventMetadata,
  ): Promise<Decision<State, Event>>;
  /**
   * Appends to a stream that is a set by nature (its events commute, e.g. a resource's tag
   * attachments), at whatever version it has: no decision depends on its order.
   */
  appendToSet(
    streamId: string,
    events: readonly DomainEvent[],
    metadata: EventMetadata,
  ): Promise<void>;
  /**
   * Orders the writers of one set stream until the transaction ends. Each writer takes it
   * before reading the facts its events rest on: writers racing onto one set otherwise all
   * append after the same last event, all but one are refused, and under enough of them some
   * run out of retries (a 409 for a write that should simply wait its turn).
   */
  lockSet(streamId: string): Promise<void>;
  /**
   * Locks the row of `table` whose `id` it is until the transaction ends, and reads `columns`
   * of it; undefined when there is no such row. Table and columns are SQL text of the caller's
   * code (never input), as in its own queries.
   */
  lockRow<Row extends object>(
    table: string,
    id: string,
    columns?: string,
  ): Promise<RowLock<Row> | undefined>;
  /**
   * Appends after whatever the stream holds, for a stream that is never folded: its commands
   * decide on this service's tables under a row lock every writer of the stream takes first
   * (a dataset's examples, behind the dataset's row), so the lock orders them, not a version
   * read, and no command reads an unbounded history. `lock` is that lock, taken in this scope.
   */
  appendLocked(
    lock: RowLock,
    streamId: string,
    events: readonly DomainEvent[],
    metadata: EventMetadata,
  ): Promise<void>;
  /**
   * `appendLocked` as the command's last statement. When each event's projection is one
   * statement, COMMIT goes out right behind them, and the transaction commits in the round
   * trip of its append: the command sends nothing after it, and whatever could refuse the
   * events is refused in the projection's SQL. Otherwise, and in a transaction someone else
   * holds, just `appendLocked`.
   *
   * With `checks`, COMMIT waits for them instead: they run once the statements are sent (a
   * command gone `ahead` checks what it assumed against `firstAnswer` there, while Postgres
   * writes), and when they throw, their error is the command's and nothing commits.
   */
  appendLockedLast(
    lock: RowLock,
    streamId: string,
    events: readonly DomainEvent[],
    metadata: EventMetadata,
    checks?: () => Promise<void>,
  ): Promise<void>;
  /**
   * What the command's `lockFirst` took in BEGIN's round trip; undefined without one. With
   * `assumed`, the lock of the assumed row and no `then` rows: the round trip has not answered.
   */
  readonly first: LockedFirst | undefined;
  /** What `lockFirst` read, once BEGIN's round trip answered; undefined without one. */
  readonly firstAnswer: Promise<LockedFirst> | undefined;
}

/** The row lock a command took first, in BEGIN's round trip, and what it read under it. */
export interface LockedFirst {
  /** The row's lock; undefined when there is no such row. */
  readonly lock: RowLock<QueryResultRow> | undefined;
  /** The rows of each `then` statement; none when there is no such row. */
  readonly then: readonly (readonly QueryResultRow[])[];
}

/** A command, or how to build it from the folded state and facts read in the transaction. */
export type CommandInput<State, Command> =
  Command | { build: (state: State, client: PoolClient) => Promise<Command> };

const isBuilder = <S, C>(
  c: CommandInput<S, C>,
): c is { build: (s: S, client: PoolClient) => Promise<C> } =>
  typeof c === "object" && c !== null && typeof (c as { build?: unknown }).build === "function";

type StreamAccess = Pick<
  EventStoreTransaction,
  "client" | "append" | "loadStream" | "saveSnapshot" | "opened"
> &
  Partial<Pick<EventStoreTransaction, "commitNow">>;

const lockSql = (table: string, columns: string, id: string) =>
  `SELECT ${columns} FROM ${table} WHERE id = ${id} FOR UPDATE`;

function commandScope(
  tx: StreamAccess,
  project: Project,
  schema: string,
  first?: LockFirst,
  /** What `first` read; undefined when the command went ahead of it, on `first.assumed`. */
  opened?: readonly QueryResult[],
): CommandScope {
  // The locks this scope took: a lock of another transaction (an earlier attempt's) orders nothing.
  const locks = new WeakSet<RowLock>();
  const lockOf = <Row>(table: string, id: string, row: Row | undefined) => {
    if (row === undefined) return undefined;
    const lock = { table, id, row } as RowLock<Row>;
    locks.add(lock);
    return lock;
  };
  async function append(
    streamId: string,
    version: ExpectedVersion,
    events: readonly DomainEvent[],
    metadata: EventMetadata,
    last = false,
    checks?: () => Promise<void>,
  ): Promise<void> {
    if (events.length === 0) return checks?.();
    const appended = events.map((e) => ({ type: e.type, data: e.data, eventId: randomUUID() }));
    const statements = project.statements?.(appended);
    // One event projected by one statement goes in the append's own statement: the projection
    // reads the event as it was inserted, not back from its row (the floor's shape; ~0.07 ms of
    // Postgres alone, none in the stack's wall time). Other statements go out right behind the
    // append's (the transaction's connection pipelines them, withTransaction.ts), not a round
    // trip later, and so may COMMIT: when the append fails, they fail on the aborted
    // transaction, and the append's error is the one that counts. All of it in one write.
    const fused = statements?.length === 1 ? statements[0] : undefined;
    const [appending, projecting] = inOneWrite(tx.client, () => {
      const sent = [
        tx.append(
          streamId,
          version,
          appended.map((e) => ({ ...e, metadata })),
          fused,
        ),
        fused
          ? undefined
          : statements
            ? Promise.all(
                statements.map((s, i) =>
                  runStatement(tx.client, readBack(s, schema, appended[i]!.eventId)),
                ),
              )
            : project(tx.client, appended, schema),
      ] as const;
      if (last && statements && !checks) tx.commitNow?.();
      return sent;
    });
    // A failed check says more than what its failed assumption did to the statements.
    const checking = checks?.().then(() => {
      if (last && statements) tx.commitNow?.();
    });
    const [c, a, p] = await Promise.allSettled([checking, appending, projecting]);
    if (c.status === "rejected") throw c.reason;
    if (a.status === "rejected") throw a.reason;
    if (p.status === "rejected") throw p.reason;
  }
  async function appendLocked(
    lock: RowLock,
    streamId: string,
    events: readonly DomainEvent[],
    metadata: EventMetadata,
    last: boolean,
    checks?: () => Promise<void>,
  ): Promise<void> {
    if (!locks.has(lock))
      throw new Error(`appendLocked to ${streamId}: the row lock was not taken in this scope`);
    await append(streamId, "any", events, metadata, last, checks);
  }
  return {
    client: tx.client,
    async decide(streamId, decider, command, metadata) {
      type State = Parameters<typeof decider.evolve>[0];
      const snapshots = decider.snapshots;
      const tag = snapshotTag(decider);
      const read = await tx.loadStream(streamId, tag);
      const state = fold(
        decider,
        read.events.map(
          (e) => ({ type: e.type, data: e.data }) as Parameters<typeof decider.evolve>[1],
        ),
        read.snapshot ? (read.snapshot.state as State) : decider.initialState,
      );
      const events = decider.decide(
        isBuilder(command) ? await command.build(state, tx.client) : command,
        state,
      );
      await append(streamId, read.version, events, metadata);
      const after = events.reduce(decider.evolve, state);
      const version = read.version + events.length;
      if (snapshots && tag && version - (read.snapshot?.version ?? 0) >= snapshots.every)
        await tx.saveSnapshot(streamId, { tag, version, state: after });
      return { events, state: after, version };
    },
    appendToSet: (streamId, events, metadata) => append(streamId, "any", events, metadata),
    async lockSet(streamId) {
      await tracedQuery(
        tx.client,
        "lock set",
        "SELECT pg_advisory_xact_lock(hashtextextended('argus.set:' || $1, 0))",
        [streamId],
      );
    },
    async lockRow<Row extends object>(table: string, id: string, columns = "*") {
      const { rows } = await tracedQuery<Row>(
        tx.client,
        `lock ${table}`,
        lockSql(table, columns, "$1"),
        [id],
      );
      return lockOf(table, id, rows[0]);
    },
    appendLocked: (lock, streamId, events, metadata) =>
      appendLocked(lock, streamId, events, metadata, false),
    appendLockedLast: (lock, streamId, events, metadata, checks) =>
      appendLocked(lock, streamId, events, metadata, true, checks),
    first:
      first &&
      (opened
        ? lockedFirst(first, opened, lockOf)
        : { lock: lockOf(first.table, first.id, first.assumed), then: [] }),
    firstAnswer: first && answerOf(first, tx.opened, lockOf),
  };
}

/**
 * What `first` read, once it answered. Its failure is the transaction's (withTransaction): a
 * command that never looks at this is not an unhandled rejection.
 */
function answerOf(
  first: LockFirst,
  opened: Promise<readonly QueryResult[]>,
  lockOf: <Row>(table: string, id: string, row: Row | undefined) => RowLock<Row> | undefined,
): Promise<LockedFirst> {
  const answer = opened.then((answered) => lockedFirst(first, answered, lockOf));
  answer.catch(() => {});
  return answer;
}

/**
 * What BEGIN's round trip read for `lockFirst`: the row, then each `then` statement's rows.
 * An id that is no uuid names no row (the table's ids are uuids), and nothing was sent for it.
 */
function lockedFirst(
  first: LockFirst,
  opened: readonly QueryResult[],
  lockOf: <Row>(table: string, id: string, row: Row | undefined) => RowLock<Row> | undefined,
): LockedFirst {
  const lock = lockOf<QueryResultRow>(first.table, first.id, opened[0]?.rows[0]);
  return { lock, then: lock ? opened.slice(1).map((r) => r.rows) : [] };
}

/** A command scope over a transaction someone else holds: a consumer's, with its checkpoint. */
export function commandScopeIn(
  client: PoolClient,
  schema: string,
  project: Project,
  maxEventBytes = 1024 * 1024,
): CommandScope {
  return commandScope(
    {
      client,
      loadStream: (streamId, tag) => loadStream(client, schema, streamId, tag),
      saveSnapshot: (streamId, snapshot) => saveSnapshot(client, schema, streamId, snapshot),
      append: (streamId, version, events, projection) =>
        appendToStream(client, schema, streamId, version, events, { maxEventBytes }, projection),
      opened: Promise.resolve([]),
    },
    project,
    schema,
  );
}

export interface CommandOptions {
  /** Unique index, exclusion or foreign-key constraint → the 409 detail when it fires. */
  conflicts?: Readonly<Record<string, string>>;
  /**
   * Once the caller is gone or its deadline passed, no attempt starts. Default: the signal of
   * the gRPC call being served.
   */
  signal?: AbortSignal;
  /**
   * The row the command locks first, taken in BEGIN's round trip, and `then`: statements to
   * run under that lock in the same round trip. Both are the scope's `first`. `then` is SQL
   * without parameters: its values are the caller's literals, made from values it checked.
   * The table's ids are uuids: an id that is no uuid names no row, and sends nothing.
   */
  lockFirst?: LockFirst;
  /**
   * The command's own work that needs no database (parsing its input), done while BEGIN's
   * round trip is in flight, on each attempt; what it throws is the command's error.
   */
  meanwhile?: () => void;
}

export interface LockFirst {
  table: string;
  id: string;
  columns: string;
  then?: string;
  /**
   * The row as the caller expects the lock to read it (from a cache of its own): the command
   * goes ahead of BEGIN's round trip (`Opening.ahead`), on this row, and must check
   * `firstAnswer` before it lets COMMIT go (`appendLockedLast`'s `checks`).
   */
  assumed?: QueryResultRow;
}

export interface CommandHandler {
  /** One stream's command: read, fold, decide, append and project in one transaction. */
  handle<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: CommandInput<State, Command>,
    metadata: EventMetadata,
    options?: CommandOptions,
  ): Promise<Decision<State, Event>>;
  /** A command over several streams (or one that reads other tables first), atomically. */
  transact<T>(fn: (scope: CommandScope) => Promise<T>, options?: CommandOptions): Promise<T>;
}

/**
 * The one way a service runs a command. The store retries the whole transaction, reading the
 * stream afresh, when another command moved it on; after its last retry the caller gets a
 * 409, as it does when a projection's unique index or foreign key says the command conflicts.
 * A transaction whose database connection was lost before COMMIT is run again too (nothing of
 * it happened); one lost during COMMIT, and one still lost after the retries, is a 503.
 *
 * A call that carries a request key (an Idempotency-Key the gateway forwarded) has it recorded
 * in the first transaction of the call, before the command decides: the key commits with the
 * events or not at all, and a second execution of the request — concurrent ones wait on the
 * first's insert — fails with RequestAlreadyApplied instead of appending again (the gRPC
 * binding then answers with the first execution's answer). `clock` dates the record and
 * decides when it expired.
 */
export function createCommandHandler(
  store: EventStore,
  project: Project,
  clock: Clock = systemClock,
): CommandHandler {
  async function transact<T>(
    fn: (scope: CommandScope) => Promise<T>,
    options: CommandOptions = {},
  ): Promise<T> {
    try {
      const signal = options.signal ?? currentCallSignal();
      // Recorded once per call: a later transaction of the same request (or one running beside
      // the recording one) is part of the same effect.
      const key = currentRequestKey();
      const recording = key && !key.recorded && !recordingNow.has(key) ? key : undefined;
      if (recording) recordingNow.add(recording);
      try {
        const first = options.lockFirst;
        const sql =
          first && isUuid(first.id)
            ? [lockSql(first.table, first.columns, `'${first.id}'`), first.then]
                .filter(Boolean)
                .join("; ")
            : undefined;
        const ahead = sql !== undefined && first?.assumed !== undefined;
        const result = await store.transaction(
          async (tx) => {
            if (signal?.aborted)
              throw new DomainError(
                "gateway-timeout",
                "the call was cancelled or its deadline passed",
              );
            if (recording) await recordRequest(tx.client, store.schema, recording, clock.now());
            const opened = ahead ? undefined : await tx.opened;
            return fn(commandScope(tx, project, store.schema, first, opened));
          },
          { sql, meanwhile: options.meanwhile, ahead },
        );
        if (recording) recording.recorded = true;
        return result;
      } finally {
        if (recording) recordingNow.delete(recording);
      }
    } catch (err) {
      if (err instanceof CommitOutcomeUnknownError)
        // 503, never run again here: only the caller can tell (by reading, or by sending the
        // request again under its Idempotency-Key) whether it happened.
        throw new DomainError(
          "service-unavailable",
          "the database was lost while the change was being committed: it may or may not have been applied",
        );
      throw asConflict(err, options.conflicts ?? {}) ?? err;
    }
  }
  return {
    transact,
    handle: (streamId, decider, command, metadata, options) =>
      transact((scope) => scope.decide(streamId, decider, command, metadata), options),
  };
}

// The request keys a transaction of their call is recording at this moment.
const recordingNow = new WeakSet<object>();

function asConflict(
  err: unknown,
  conflicts: Readonly<Record<string, string>>,
): DomainError | undefined {
  if (err instanceof ConcurrencyError)
    return new DomainError(
      "resource-conflict",
      "the resource was changed by a concurrent request; retry with its current state",
    );
  const e = err as { code?: string; constraint?: string } | null;
  const detail =
    e && (e.code === "23505" || e.code === "23503" || e.code === "23P01") && e.constraint
      ? conflicts[e.constraint]
      : undefined;
  return detail === undefined ? undefined : new DomainError("resource-conflict", detail);
}
