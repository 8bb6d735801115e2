import pg from "pg";
import { describe, expect, it } from "vitest";
import { DomainError, createLogger, runInCall, type CallContext } from "@argus/platform";
import {
  commandScopeIn,
  createCommandHandler,
  createEventStore,
  projector,
  tracedQuery,
  type CommandScope,
  type Decider,
  type LockedFirst,
  type Project,
  type RowLock,
} from "../src/index.ts";
import { snapshotTag } from "../src/commands/decider.ts";
import { EventTooLargeError } from "../src/errors.ts";
import { fileSchema } from "./support.ts";

/** A counter that may be closed: increments after the close are refused. */
type Event = { type: "Incremented"; data: { n: number } } | { type: "Closed"; data: object };
type Command = { type: "Increment" } | { type: "Close" };
interface State {
  n: number;
  closed: boolean;
}
const seen: State[] = [];
const counter: Decider<State, Command, Event> = {
  initialState: { n: 0, closed: false },
  evolve: (s, e) => (e.type === "Incremented" ? { ...s, n: e.data.n } : { ...s, closed: true }),
  decide(c, s) {
    seen.push(s);
    if (s.closed) throw new DomainError("resource-not-found", "closed");
    return c.type === "Increment"
      ? [{ type: "Incremented", data: { n: s.n + 1 } }]
      : [{ type: "Closed", data: {} }];
  },
};

const file = fileSchema(
  "cmd",
  "CREATE TABLE names (name text PRIMARY KEY)",
  "CREATE TABLE items (id text PRIMARY KEY, label text NOT NULL)",
);
const { schema } = file;

const project: Project = async (client, events) => {
  for (const e of events)
    if (e.type === "Named")
      await tracedQuery(client, "name", `insert into ${schema}.names values ($1)`, [
        (e.data as { name: string }).name,
      ]);
};
const stream = () => `counter-${crypto.randomUUID()}`;
const history = async (id: string) =>
  (await createEventStore({ pool: file.env.pool, schema }).readStream(id)).map((e) => e.type);
const items = () => `${schema}.items`;
/** A row of `items` to lock, and its id. */
const item = async (label = "an item") => {
  const id = crypto.randomUUID();
  await file.env.pool.query(`insert into ${items()} values ($1, $2)`, [id, label]);
  return id;
};

describe("handleCommand", () => {
  it("decides on the folded stream and appends at the version read", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const id = stream();
    await commands.handle(id, counter, { type: "Increment" }, {});
    const second = await commands.handle(id, counter, { type: "Increment" }, { actor: "a" });
    expect(second).toMatchObject({ state: { n: 2 }, version: 2 });
    expect(second.events).toEqual([{ type: "Incremented", data: { n: 2 } }]);
  });

  it("re-decides with fresh state when the stream moved on between read and append", async () => {
    const store = createEventStore({
      pool: file.env.pool,
      schema,
      retryBackoff: { baseMs: 1, maxMs: 2 },
    });
    const commands = createCommandHandler(store, project);
    const id = stream();
    await commands.handle(id, counter, { type: "Increment" }, {});
    seen.length = 0;
    let interfered = false;
    const result = await commands
      .handle(
        id,
        counter,
        {
          // On the first attempt another command commits on the same stream after our read.
          build: async () => {
            if (!interfered) {
              interfered = true;
              await createCommandHandler(store, project).handle(id, counter, { type: "Close" }, {});
            }
            return { type: "Increment" };
          },
        },
        {},
      )
      .catch((e: unknown) => e);
    // The first attempt decided on n=1 and open; the retry saw the close and refused.
    expect(seen.slice(-2)).toEqual([
      { n: 1, closed: false },
      { n: 1, closed: true },
    ]);
    expect(result).toBeInstanceOf(DomainError);
    expect((result as DomainError).type).toBe("resource-not-found");
    expect(await history(id)).toEqual(["Incremented", "Closed"]);
  });

  it("20 racing commands on one stream leave a history the decider accepts, never a gap", async () => {
    const store = createEventStore({ pool: file.env.pool, schema, retries: 30 });
    const commands = createCommandHandler(store, project);
    const id = stream();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        commands.handle(id, counter, { type: i % 7 === 6 ? "Close" : "Increment" }, {}),
      ),
    );
    const events = await createEventStore({ pool: file.env.pool, schema }).readStream(id);
    // Replaying the history through the decider: every increment counts on, nothing after a close.
    let state = counter.initialState;
    for (const e of events) {
      expect(state.closed).toBe(false);
      const ev = { type: e.type, data: e.data } as Event;
      if (ev.type === "Incremented") expect(ev.data.n).toBe(state.n + 1);
      state = counter.evolve(state, ev);
    }
    const failed = outcomes.filter((o) => o.status === "rejected");
    for (const f of failed) expect((f.reason as DomainError).type).toMatch(/not-found|conflict/);
    expect(events.length).toBe(20 - failed.length);
  });

  it("answers 409 once the retries are used up", async () => {
    const store = createEventStore({ pool: file.env.pool, schema, retries: 0 });
    const commands = createCommandHandler(store, project);
    const id = stream();
    const err = await commands
      .handle(
        id,
        counter,
        {
          build: async () => {
            await createCommandHandler(store, project).handle(
              id,
              counter,
              { type: "Increment" },
              {},
            );
            return { type: "Increment" };
          },
        },
        {},
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe("resource-conflict");
  });

  it("maps a projection's unique index to the 409 detail it was given, writing nothing", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const named: Decider<null, string, { type: "Named"; data: { name: string } }> = {
      initialState: null,
      evolve: (s) => s,
      decide: (name) => [{ type: "Named", data: { name } }],
    };
    const name = `n-${crypto.randomUUID()}`;
    await commands.handle(stream(), named, name, {});
    const second = stream();
    const err = await commands
      .handle(second, named, name, {}, { conflicts: { names_pkey: "that name is taken" } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "resource-conflict", message: "that name is taken" });
    expect(await history(second)).toEqual([]);
  });
});

describe("a statement projection in the append's own statement", () => {
  // Each committed increment names `tag:n`, read from the event as appended.
  const counted = (tag: string) =>
    projector<Event>("test", {
      Incremented: {
        statement: () => ({
          name: "counted",
          with: `counted as (
                   insert into ${schema}.names select $1 || ':' || (data ->> 'n') from appended)`,
          values: [tag],
        }),
      },
      Closed: { statement: () => ({ name: "closed", with: "closed as (select 1)", values: [] }) },
    });
  const namesOf = async (tag: string) =>
    (
      await file.env.pool.query<{ name: string }>(
        `select name from ${schema}.names where name like $1 || ':%' order by name`,
        [tag],
      )
    ).rows.map((r) => r.name);

  it("re-decides when the stream moved on, and projects only what committed", async () => {
    const store = createEventStore({
      pool: file.env.pool,
      schema,
      retryBackoff: { baseMs: 1, maxMs: 2 },
    });
    const [tag, id] = [crypto.randomUUID(), stream()];
    const commands = createCommandHandler(store, counted(tag));
    await commands.handle(id, counter, { type: "Increment" }, {});
    let interfered = false;
    const result = await commands.handle(
      id,
      counter,
      {
        // The first attempt appends at version 1, which the interfering increment took.
        build: async () => {
          if (!interfered) {
            interfered = true;
            await commands.handle(id, counter, { type: "Increment" }, {});
          }
          return { type: "Increment" };
        },
      },
      {},
    );
    expect(result).toMatchObject({ state: { n: 3 }, version: 3 });
    expect(await history(id)).toEqual(["Incremented", "Incremented", "Incremented"]);
    expect(await namesOf(tag)).toEqual([`${tag}:1`, `${tag}:2`, `${tag}:3`]);
  });

  it("maps the projection's unique index to its 409 detail, appending nothing", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      counted("taken"),
    );
    await commands.handle(stream(), counter, { type: "Increment" }, {});
    const second = stream();
    const err = await commands
      .handle(
        second,
        counter,
        { type: "Increment" },
        {},
        { conflicts: { names_pkey: "that count is taken" } },
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "resource-conflict", message: "that count is taken" });
    expect(await history(second)).toEqual([]);
  });
});

describe("the projection behind the append", () => {
  const named: Decider<null, string, { type: "Named"; data: { name: string } }> = {
    initialState: null,
    evolve: (s) => s,
    decide: (name) => [{ type: "Named", data: { name } }],
  };

  it("is made before the append answers (the connection pipelines it), and reads the appended row by the event's id", async () => {
    const log: string[] = [];
    // The projection reads its event's row by id: it runs after the append on the wire.
    const reading: Project = async (client, events) => {
      for (const e of events)
        await tracedQuery(
          client,
          "read back",
          `insert into ${schema}.names select data ->> 'name' from ${schema}.events where event_id = $1`,
          [e.eventId],
        );
    };
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      reading,
    );
    const name = `p-${crypto.randomUUID()}`;
    await commands.transact(async (scope) => {
      const query = scope.client.query.bind(scope.client);
      scope.client.query = ((config: { text?: string }, ...rest: unknown[]) => {
        const text = config.text ?? "";
        const what = /events where event_id/.test(text)
          ? "projection"
          : /INSERT INTO .*events/.test(text)
            ? "append"
            : "read";
        log.push(`sent ${what}`);
        const answer = (query as (...a: unknown[]) => Promise<unknown>)(config, ...rest);
        void answer.then(() => log.push(`answered ${what}`));
        return answer;
      }) as typeof scope.client.query;
      try {
        await scope.decide(stream(), named, name, {});
      } finally {
        scope.client.query = query;
      }
    });
    expect(log).toEqual([
      "sent read",
      "answered read",
      "sent append",
      "sent projection",
      "answered append",
      "answered projection",
    ]);
    const { rows } = await file.env.pool.query(`select 1 from ${schema}.names where name = $1`, [
      name,
    ]);
    expect(rows).toHaveLength(1);
  });

  it("fails with the transaction when the append fails, and the append's error is the one reported", async () => {
    const store = createEventStore({ pool: file.env.pool, schema, retries: 0 });
    const commands = createCommandHandler(store, project);
    const id = stream();
    const name = `c-${crypto.randomUUID()}`;
    const err = await commands
      .handle(
        id,
        named,
        {
          // Another command appends first: this one's append conflicts, its projection's
          // insert runs on the aborted transaction.
          build: async () => {
            await createCommandHandler(store, project).handle(id, named, `${name}-first`, {});
            return name;
          },
        },
        {},
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "resource-conflict" });
    const { rows } = await file.env.pool.query(
      `select name from ${schema}.names where name like $1`,
      [`${name}%`],
    );
    expect(rows).toEqual([{ name: `${name}-first` }]);
    expect(await history(id)).toEqual(["Named"]);
  });
});

describe("handleCommand with the call's signal", () => {
  it("starts no attempt once the call is cancelled", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const id = stream();
    const err = await commands
      .handle(id, counter, { type: "Increment" }, {}, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "gateway-timeout" });
    expect(await history(id)).toEqual([]);
  });

  it("takes the signal of the gRPC call being served when none is given", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const id = stream();
    const call = {
      signal: AbortSignal.abort(),
      logger: createLogger({ service: "test", level: "error" }),
    } as unknown as CallContext;
    const err = await runInCall(call, () =>
      commands.handle(id, counter, { type: "Increment" }, {}),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "gateway-timeout" });
    expect(await history(id)).toEqual([]);
  });
});

describe("handleCommand on a snapshotted stream", () => {
  const snapshotted = (tag: string): Decider<State, Command, Event> => ({
    ...counter,
    snapshots: { tag, every: 5 },
  });
  const snapshotOf = async (id: string) =>
    (
      await file.env.pool.query<{ tag: string; stream_version: number; state: State }>(
        `select tag, stream_version, state from ${schema}.snapshots where stream_id = $1`,
        [id],
      )
    ).rows[0];
  /** Rewrites a stream's snapshot state behind the handler's back. */
  const alterSnapshot = (id: string, state: State) =>
    file.env.pool.query(`update ${schema}.snapshots set state = $2 where stream_id = $1`, [
      id,
      JSON.stringify(state),
    ]);
  const increments = async (decider: Decider<State, Command, Event>, id: string, n: number) => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    let last;
    for (let i = 0; i < n; i++)
      last = await commands.handle(id, decider, { type: "Increment" }, {});
    return last;
  };

  it("keeps the state every `every` events, in the command's transaction; none on a short stream", async () => {
    const id = stream();
    await increments(snapshotted("counter/1"), id, 4);
    expect(await snapshotOf(id)).toBeUndefined();
    await increments(snapshotted("counter/1"), id, 1);
    expect(await snapshotOf(id)).toEqual({
      tag: expect.stringMatching(/^counter\/1#[0-9a-f]{12}$/),
      stream_version: 5,
      state: { n: 5, closed: false },
    });
    const last = await increments(snapshotted("counter/1"), id, 7);
    expect(last).toMatchObject({ version: 12, state: { n: 12 } });
    expect(await snapshotOf(id)).toMatchObject({ stream_version: 10, state: { n: 10 } });
  });

  it("folds only the events after the snapshot (a snapshot altered by hand shows through)", async () => {
    const id = stream();
    await increments(snapshotted("counter/1"), id, 6);
    // Events 1..6 say the counter is open; the snapshot at version 5 now says it is closed.
    await alterSnapshot(id, { n: 5, closed: true });
    const err = await increments(snapshotted("counter/1"), id, 1).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "resource-not-found" });
    // The same stream folded whole is open.
    expect(await increments(counter, id, 1)).toMatchObject({ version: 7, state: { n: 7 } });
  });

  it("reads no snapshot of another tag, and replaces it with its own", async () => {
    const id = stream();
    await increments(snapshotted("counter/1"), id, 5);
    await alterSnapshot(id, { n: 100, closed: true });
    const next = await increments(snapshotted("counter/2"), id, 1);
    expect(next).toMatchObject({ version: 6, state: { n: 6 } });
    expect(await snapshotOf(id)).toEqual({
      tag: expect.stringMatching(/^counter\/2#/),
      stream_version: 6,
      state: { n: 6, closed: false },
    });
    // The same tag over another `evolve` is another tag too.
    const edited = {
      ...snapshotted("counter/2"),
      evolve: (s: State, e: Event) => counter.evolve(s, e),
    };
    expect(await increments(edited, id, 1)).toMatchObject({ version: 7, state: { n: 7 } });
    expect(await snapshotOf(id)).toMatchObject({ stream_version: 7 });
    expect((await snapshotOf(id))?.tag).not.toBe(snapshotTag(snapshotted("counter/2")));
    // A decider without snapshots folds everything and leaves the snapshot alone.
    expect(await increments(counter, id, 1)).toMatchObject({ version: 8, state: { n: 8 } });
    expect(await snapshotOf(id)).toMatchObject({ stream_version: 7 });
  });

  it("writers racing on one stream leave a snapshot of a version some command committed", async () => {
    const id = stream();
    const store = createEventStore({
      pool: file.env.pool,
      schema,
      retries: 50,
      retryBackoff: { baseMs: 1, maxMs: 10 },
    });
    const commands = createCommandHandler(store, project);
    await Promise.all(
      Array.from({ length: 12 }, () =>
        commands.handle(id, snapshotted("counter/1"), { type: "Increment" }, {}),
      ),
    );
    // Which version keeps it depends on the race: a writer that read the stream's snapshot
    // before the one at 5 committed, and its events after, counts from 0 and keeps its own
    // (at 8, say; the next is then due at 13). Some writer at 5 or later always keeps one.
    const snapshot = await snapshotOf(id);
    expect(snapshot?.stream_version).toBeGreaterThanOrEqual(5);
    expect(snapshot?.stream_version).toBeLessThanOrEqual(12);
    expect(snapshot?.state.n).toBe(snapshot?.stream_version);
    expect(await history(id)).toHaveLength(12);
  });
});

describe("appendLocked", () => {
  const noted = (by: string) => [{ type: "Noted", data: { by } }];
  const notes = async (id: string) =>
    (await createEventStore({ pool: file.env.pool, schema }).readStream(id)).map(
      (e) => (e.data as { by: string }).by,
    );

  it("appends after whatever the stream holds, under the lock of a row it read", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const [id, s] = [await item(), stream()];
    const row = await commands.transact(async (scope) => {
      const lock = await scope.lockRow<{ label: string }>(items(), id, "label");
      if (!lock) throw new Error("no row");
      await scope.appendLocked(lock, s, noted("one"), {});
      await scope.appendLocked(lock, s, noted("two"), {});
      return lock.row;
    });
    expect(row).toEqual({ label: "an item" });
    expect(await notes(s)).toEqual(["one", "two"]);
  });

  it("gives no lock for a row that is not there", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const lock = await commands.transact((scope) => scope.lockRow(items(), "none"));
    expect(lock).toBeUndefined();
  });

  it("holds the row until the transaction ends: a second writer waits, then appends after", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const [id, s] = [await item(), stream()];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let taken = () => {};
    const lockTaken = new Promise<void>((resolve) => (taken = resolve));
    const first = commands.transact(async (scope) => {
      const lock = await scope.lockRow(items(), id);
      taken();
      await held;
      await scope.appendLocked(lock!, s, noted("first"), {});
    });
    await lockTaken;
    let secondLocked = false;
    const second = commands.transact(async (scope) => {
      const lock = await scope.lockRow(items(), id);
      secondLocked = true;
      await scope.appendLocked(lock!, s, noted("second"), {});
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waited = !secondLocked;
    release();
    await Promise.all([first, second]);
    expect(waited).toBe(true);
    expect(await notes(s)).toEqual(["first", "second"]);
  });

  it("refuses a lock this transaction did not take, appending nothing", async () => {
    const commands = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema }),
      project,
    );
    const [id, s] = [await item(), stream()];
    // An earlier transaction's lock: it ended with that transaction.
    const stale = await commands.transact((scope) => scope.lockRow(items(), id));
    const forged = { table: items(), id, row: {} } as unknown as RowLock;
    for (const lock of [stale!, forged]) {
      const err = await commands
        .transact((scope) => scope.appendLocked(lock, s, noted("x"), {}))
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ message: expect.stringMatching(/not taken in this scope/) });
    }
    expect(await notes(s)).toEqual([]);
  });

  // Checked by the type-checker (pnpm typecheck), never run: an append that relies on a lock
  // needs the lock's token, and only lockRow makes one.
  void ((scope: CommandScope): RowLock => {
    // @ts-expect-error: no lock, no appendLocked.
    void scope.appendLocked(stream(), noted("x"), {});
    // @ts-expect-error: a RowLock is not made by hand.
    const made: RowLock = { table: "items", id: "x", row: {} };
    return made;
  });
});

describe("appendLockedLast", () => {
  const labelOf = async (id: string) =>
    (await file.env.pool.query(`select label from ${items()} where id = $1`, [id])).rows[0];
  type Labelled = { type: "Labelled"; data: { id: string; label: string } };
  // One statement, the label read from the event as appended, refusing "refused" in SQL.
  const labelling = projector<Labelled>("test", {
    Labelled: {
      statement: (d) => ({
        name: "label",
        with: `label as (select data ->> 'label' as label from appended), labelled as (
                 update ${items()} set label = (select label from label) where id = $1)`,
        check: `(case when (select label from label) = 'refused'
                      then ${schema}.refuse('AXT01', 'refused') else 1 end)`,
        values: [d.id],
      }),
    },
  });
  const commandsOf = (p: Project) =>
    createCommandHandler(createEventStore({ pool: file.env.pool, schema }), p);
  interface Writes {
    _write: (...a: unknown[]) => void;
    _writev: (...a: unknown[]) => void;
  }
  /**
   * Runs appendLockedLast on the item's lock, logging what is sent, written to the server and
   * answered, in order.
   */
  const labelLast = async (
    p: Project,
    id: string,
    s: string,
    label: string,
    log: string[],
    more: Labelled["data"][] = [],
  ) => {
    let restore = () => {};
    try {
      return await commandsOf(p).transact(async (scope) => {
        const lock = await scope.lockRow(items(), id);
        const client = scope.client;
        const query = client.query;
        // What reaches the server's socket: one entry per system call.
        const socket = (client as unknown as { connection: { stream: Writes } }).connection.stream;
        const { _write, _writev } = socket;
        socket._write = (...a) => (log.push("written"), _write.apply(socket, a));
        socket._writev = (...a) => (log.push("written"), _writev.apply(socket, a));
        // Left in place until the transaction ended: COMMIT may be sent after fn returns.
        restore = () => {
          client.query = query;
          Object.assign(socket, { _write, _writev });
        };
        client.query = ((config: { text?: string }, ...rest: unknown[]) => {
          const text = config.text ?? "";
          const what = /^COMMIT/.test(text)
            ? "commit"
            : /INSERT INTO/.test(text)
              ? "append"
              : "projection";
          log.push(`sent ${what}`);
          const answer = (query as (...a: unknown[]) => Promise<unknown>).call(
            client,
            config,
            ...rest,
          );
          void answer.then(
            () => log.push(`answered ${what}`),
            () => log.push(`failed ${what}`),
          );
          return answer;
        }) as typeof client.query;
        const events = [{ id, label }, ...more].map((data) => ({ type: "Labelled", data }));
        await scope.appendLockedLast(lock!, s, events, {});
      });
    } finally {
      restore();
    }
  };
  const history = async (s: string) =>
    (await createEventStore({ pool: file.env.pool, schema }).readStream(s)).map((e) => e.data);

  it("appends a lone event and projects it in one statement, COMMIT behind it in the same write", async () => {
    const [id, s, log] = [await item(), stream(), [] as string[]];
    await labelLast(labelling, id, s, "labelled", log);
    expect(log).toEqual([
      "sent append",
      "sent commit",
      "written",
      "answered append",
      "answered commit",
    ]);
    expect(await labelOf(id)).toEqual({ label: "labelled" });
    expect(await history(s)).toEqual([{ id, label: "labelled" }]);
  });

  it("rolls everything back when the projection refuses in SQL, with the refusal as the error", async () => {
    const [id, s, log] = [await item(), stream(), [] as string[]];
    const err = await labelLast(labelling, id, s, "refused", log).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AXT01", message: "refused" });
    expect(log).toEqual([
      "sent append",
      "sent commit",
      "written",
      "failed append",
      "answered commit",
    ]);
    expect(await labelOf(id)).toEqual({ label: "an item" });
    expect(await history(s)).toEqual([]);
  });

  it("sends each of several events' statements behind their append, each reading its event back", async () => {
    const [one, two, s, log] = [await item(), await item(), stream(), [] as string[]];
    await labelLast(labelling, one, s, "first", log, [{ id: two, label: "second" }]);
    expect(log).toEqual([
      "sent append",
      "sent projection",
      "sent projection",
      "sent commit",
      "written",
      "answered append",
      "answered projection",
      "answered projection",
      "answered commit",
    ]);
    expect([await labelOf(one), await labelOf(two)]).toEqual([
      { label: "first" },
      { label: "second" },
    ]);
    expect(await history(s)).toEqual([
      { id: one, label: "first" },
      { id: two, label: "second" },
    ]);
  });

  it("sends nothing, COMMIT included, for an event the store refuses before sending it", async () => {
    const [id, s] = [await item(), stream()];
    const small = createCommandHandler(
      createEventStore({ pool: file.env.pool, schema, maxEventBytes: 2048 }),
      labelling,
    );
    const err = await small
      .transact(async (scope) => {
        const lock = await scope.lockRow(items(), id);
        const label = "x".repeat(4096);
        await scope.appendLockedLast(lock!, s, [{ type: "Labelled", data: { id, label } }], {});
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EventTooLargeError);
    expect(await labelOf(id)).toEqual({ label: "an item" });
    expect(await history(s)).toEqual([]);
  });

  it("waits for the answers before COMMIT when a projection is a function", async () => {
    const [id, s, log] = [await item(), stream(), [] as string[]];
    const asFunction: Project = (client, events, schema) => labelling(client, events, schema);
    await labelLast(asFunction, id, s, "by a function", log);
    expect(log).toEqual([
      "sent append",
      "sent projection",
      "written",
      "answered append",
      "answered projection",
      "sent commit",
      "written",
      "answered commit",
    ]);
    expect(await labelOf(id)).toEqual({ label: "by a function" });
  });

  it("is appendLocked in a transaction someone else holds: its COMMIT is theirs", async () => {
    const [id, s] = [await item(), stream()];
    const client = await file.env.pool.connect();
    try {
      await client.query("BEGIN");
      const scope = commandScopeIn(client, schema, labelling);
      const lock = await scope.lockRow(items(), id);
      await scope.appendLockedLast(
        lock!,
        s,
        [{ type: "Labelled", data: { id, label: "theirs" } }],
        {},
      );
      expect(await history(s)).toEqual([]);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect(await labelOf(id)).toEqual({ label: "an item" });
  });

  it("a command failing after its COMMIT was sent is an error, and says the transaction committed", async () => {
    const [id, s] = [await item(), stream()];
    const store = createEventStore({ pool: file.env.pool, schema });
    const err = await store
      .transaction(async (tx) => {
        await tx.append(s, 0, [{ type: "Labelled", data: { id, label: "x" } }]);
        tx.commitNow();
        throw new Error("a check made too late");
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      message: expect.stringMatching(/^committed although/),
      cause: { message: "a check made too late" },
    });
    expect(await history(s)).toEqual([{ id, label: "x" }]);
  });
  describe("ahead of lockFirst's answer, on the row assumed", () => {
    const labelled = (id: string, label: string) => [{ type: "Labelled", data: { id, label } }];
    const ahead = (id: string, then?: string, assumed: object = { label: "an item" }) => ({
      lockFirst: { table: items(), id, columns: "label", then, assumed },
    });

    it("sends the append before BEGIN's round trip answers, and COMMIT once its checks passed", async () => {
      const [id, s] = [await item(), stream()];
      const started = performance.now();
      let sentAt = Infinity;
      let checkedAt = 0;
      const answer = await commandsOf(labelling).transact(
        async (scope) => {
          // The lock of the row assumed, good for appendLocked; no `then` rows yet.
          expect(scope.first).toMatchObject({ lock: { row: { label: "an item" } }, then: [] });
          sentAt = performance.now() - started;
          let answered: LockedFirst | undefined;
          await scope.appendLockedLast(
            scope.first!.lock!,
            s,
            labelled(id, "ahead"),
            {},
            async () => {
              answered = await scope.firstAnswer!;
              checkedAt = performance.now() - started;
            },
          );
          return answered;
        },
        ahead(id, "select pg_sleep(0.3) as slept"),
      );
      // BEGIN's round trip takes 300 ms; the append went out long before it answered.
      expect(sentAt).toBeLessThan(checkedAt - 250);
      expect(answer).toMatchObject({
        lock: { row: { label: "an item" } },
        then: [[{ slept: "" }]],
      });
      expect(await labelOf(id)).toEqual({ label: "ahead" });
      expect(await history(s)).toEqual([{ id, label: "ahead" }]);
    });

    it("commits nothing when its checks fail, and their error is the command's", async () => {
      const [id, s] = [await item("changed meanwhile"), stream()];
      const err = await commandsOf(labelling)
        .transact(async (scope) => {
          await scope.appendLockedLast(
            scope.first!.lock!,
            s,
            labelled(id, "ahead"),
            {},
            async () => {
              const row = (await scope.firstAnswer!).lock?.row as { label: string } | undefined;
              if (row?.label !== "an item") throw new Error("not the row assumed");
            },
          );
        }, ahead(id))
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ message: "not the row assumed" });
      expect(await labelOf(id)).toEqual({ label: "changed meanwhile" });
      expect(await history(s)).toEqual([]);
    });

    it("fails with the opening's error when the command failed before looking at its answer", async () => {
      const id = await item();
      // Never awaited by the command: its failure is the transaction's, not an unhandled one.
      const err = await commandsOf(labelling)
        .transact(
          async () => {
            throw new Error("refused before any check");
          },
          ahead(id, "select 1/0"),
        )
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ message: "division by zero" });
      expect(await labelOf(id)).toEqual({ label: "an item" });
    });

    it("fails with the opening's error, not the aborted transaction's, and leaves the connection clean", async () => {
      const pool = new pg.Pool({ connectionString: file.env.url, max: 1 });
      try {
        const one = createCommandHandler(createEventStore({ pool, schema }), labelling);
        const [id, s] = [await item(), stream()];
        let checked = false;
        const err = await one
          .transact(
            async (scope) => {
              await scope.appendLockedLast(
                scope.first!.lock!,
                s,
                labelled(id, "ahead"),
                {},
                async () => {
                  await scope.firstAnswer;
                  checked = true;
                },
              );
            },
            ahead(id, "select 1/0"),
          )
          .catch((e: unknown) => e);
        expect(err).toMatchObject({ message: "division by zero" });
        expect(checked).toBe(false);
        expect(await labelOf(id)).toEqual({ label: "an item" });
        expect(await history(s)).toEqual([]);
        expect(
          await one.transact(async (scope) => (await scope.client.query("select 1 as n")).rows),
        ).toEqual([{ n: 1 }]);
      } finally {
        await pool.end();
      }
    });
  });
});

describe("lockFirst", () => {
  const commands = () =>
    createCommandHandler(createEventStore({ pool: file.env.pool, schema }), project);
  const labelOf = (id: string) => `select label from ${items()} where id = '${id}'`;

  it("takes the row lock in BEGIN's round trip and runs `then` under it, with no statement of its own", async () => {
    const id = await item();
    const queries: string[] = [];
    const out = await commands().transact(
      async (scope) => {
        const query = scope.client.query.bind(scope.client);
        scope.client.query = ((config: { text?: string } | string, ...rest: unknown[]) => {
          queries.push(typeof config === "string" ? config : (config.text ?? ""));
          return (query as (...a: unknown[]) => unknown)(config, ...rest);
        }) as typeof scope.client.query;
        try {
          // The lock it took is one appendLocked accepts.
          await scope.appendLocked(scope.first!.lock!, `item-${id}`, [], {});
          return scope.first;
        } finally {
          scope.client.query = query;
        }
      },
      {
        lockFirst: { table: items(), id, columns: "label", then: `${labelOf(id)}; select 2 as n` },
      },
    );
    expect(out?.lock).toMatchObject({ table: items(), id, row: { label: "an item" } });
    expect(out?.then).toEqual([[{ label: "an item" }], [{ n: 2 }]]);
    expect(queries).toEqual([]);
  });

  it("holds the row until the transaction ends, and `then` sees what the writer before it committed", async () => {
    const id = await item("before");
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let taken = () => {};
    const lockTaken = new Promise<void>((resolve) => (taken = resolve));
    const first = commands().transact(async (scope) => {
      await scope.lockRow(items(), id);
      taken();
      await held;
      await scope.client.query(`update ${items()} set label = 'after' where id = $1`, [id]);
    });
    await lockTaken;
    let secondLocked = false;
    const second = commands().transact(
      async (scope) => {
        secondLocked = true;
        return { row: scope.first?.lock?.row, then: scope.first?.then[0] };
      },
      { lockFirst: { table: items(), id, columns: "label", then: labelOf(id) } },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waited = !secondLocked;
    release();
    const [, seen] = await Promise.all([first, second]);
    expect(waited).toBe(true);
    // Each statement of the opening reads with a snapshot of its own, taken once it runs.
    expect(seen).toEqual({ row: { label: "after" }, then: [{ label: "after" }] });
  });

  it("gives neither a lock nor `then` rows for a row that is not there or an id that is no uuid", async () => {
    for (const id of ["none", crypto.randomUUID()]) {
      const out = await commands().transact(async (scope) => scope.first, {
        lockFirst: { table: items(), id, columns: "*", then: "select 1 as one" },
      });
      expect(out).toEqual({ lock: undefined, then: [] });
    }
  });

  it("leaves a command without lockFirst with none, and lockRow taking a lock by a statement", async () => {
    const id = await item("one");
    const out = await commands().transact(async (scope) => ({
      first: scope.first,
      row: (await scope.lockRow<{ label: string }>(items(), id, "label"))?.row,
    }));
    expect(out).toEqual({ first: undefined, row: { label: "one" } });
  });
});

describe("meanwhile", () => {
  const commands = () =>
    createCommandHandler(createEventStore({ pool: file.env.pool, schema }), project);
  const items = () => `${schema}.items`;

  it("runs while BEGIN's round trip is in flight, before the command, once per attempt", async () => {
    const id = crypto.randomUUID();
    await file.env.pool.query(`insert into ${items()} values ($1, 'slow')`, [id]);
    const calls: string[] = [];
    const started = performance.now();
    let meanwhileAt = 0;
    let commandAt = 0;
    await commands().transact(
      async () => {
        commandAt = performance.now() - started;
        calls.push("command");
      },
      {
        // BEGIN's round trip takes 300 ms; the work meant to overlap it starts at once.
        lockFirst: { table: items(), id, columns: "id", then: "select pg_sleep(0.3)" },
        meanwhile: () => {
          meanwhileAt = performance.now() - started;
          calls.push("meanwhile");
        },
      },
    );
    expect(calls).toEqual(["meanwhile", "command"]);
    expect(commandAt).toBeGreaterThanOrEqual(300);
    expect(meanwhileAt).toBeLessThan(commandAt - 250);
  });

  it("makes what it throws the command's error, with nothing of the command done", async () => {
    const id = stream();
    let ran = false;
    const err = await commands()
      .transact(
        async (scope) => {
          ran = true;
          await scope.appendToSet(id, [{ type: "Named", data: { name: id } }], {});
        },
        {
          meanwhile: () => {
            throw new DomainError("invalid-request", "the input is refused");
          },
        },
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: "invalid-request", message: "the input is refused" });
    expect(ran).toBe(false);
    expect(await history(id)).toEqual([]);
  });

  it("makes what it throws the error even when BEGIN's round trip fails too, and leaves the connection clean", async () => {
    // One connection, so the transaction after is on the same one.
    const pool = new pg.Pool({ connectionString: file.env.url, max: 1 });
    try {
      const one = createCommandHandler(createEventStore({ pool, schema }), project);
      const failing = {
        table: items(),
        id: crypto.randomUUID(),
        columns: "id",
        then: "select 1/0",
      };
      const err = await one
        .transact(async () => "never", {
          lockFirst: failing,
          meanwhile: () => {
            throw new DomainError("invalid-request", "the input is refused");
          },
        })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ type: "invalid-request" });
      // Without meanwhile, BEGIN's round trip's own error; either way rolled back.
      expect(
        await one.transact(async () => "never", { lockFirst: failing }).catch((e) => e),
      ).toMatchObject({
        message: "division by zero",
      });
      expect(
        await one.transact(async (scope) => (await scope.client.query("select 1 as n")).rows),
      ).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
