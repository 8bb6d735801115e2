import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { createCommandHandler, createEventStore, tracedQuery } from "../src/index.ts";
import { CommitOutcomeUnknownError } from "../src/errors.ts";
import { recordingLogger, fileSchema } from "./support.ts";

// A database restart or failover breaks the connections a service holds (issue 29). A pooled
// client that is checked out then emits 'error' — which killed the process when nobody listened
// — and the transaction on it is lost. Before COMMIT was sent nothing of it happened, so the
// store runs it again; during COMMIT its outcome is unknown, so the caller gets a 503.

const file = fileSchema(
  "lost",
  "CREATE TABLE writes (attempt int NOT NULL)",
  "CREATE TABLE slow_writes (attempt int NOT NULL)",
  // A commit that takes 2 s (a deferred trigger): long enough to lose the connection in it.
  `CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$`,
  `CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow_writes
       DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()`,
);
const { schema } = file;

const project = async () => undefined;

describe("a transaction whose connection is lost", () => {
  it("before COMMIT: runs again on a fresh connection and commits once, with no unhandled error", async () => {
    const logger = recordingLogger();
    const store = createEventStore({ pool: file.env.pool, schema, logger });
    let attempts = 0;
    await createCommandHandler(store, project).transact(async (scope) => {
      attempts++;
      await tracedQuery(scope.client, "write", `INSERT INTO ${schema}.writes VALUES ($1)`, [
        attempts,
      ]);
      // The server ends this session, as a restart or an operator would.
      if (attempts === 1)
        await tracedQuery(scope.client, "kill", "SELECT pg_terminate_backend(pg_backend_pid())");
    });
    expect(attempts).toBe(2);
    const { rows } = await file.env.pool.query(`SELECT attempt FROM ${schema}.writes`);
    expect(rows).toEqual([{ attempt: 2 }]);
    expect(logger.lines.map((l) => l.msg)).toContain(
      "database connection lost before commit; running again",
    );
  });

  it("during COMMIT: not run again; the caller gets 503, since it may have committed", async () => {
    const store = createEventStore({ pool: file.env.pool, schema });
    let attempts = 0;
    let pid: number | undefined;
    const killer = (async () => {
      // Ends the session once it is inside its COMMIT (the deferred trigger's sleep).
      for (let i = 0; i < 200; i++) {
        const { rows } = await file.env.pool.query<{ query: string }>(
          "SELECT query FROM pg_stat_activity WHERE pid = $1 AND state = 'active'",
          [pid ?? -1],
        );
        if (rows[0]?.query === "COMMIT") {
          await file.env.pool.query("SELECT pg_terminate_backend($1)", [pid]);
          return true;
        }
        await sleep(25);
      }
      return false;
    })();
    const outcome = await createCommandHandler(store, project)
      .transact(async (scope) => {
        attempts++;
        pid = (await scope.client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!
          .pid;
        await tracedQuery(scope.client, "write", `INSERT INTO ${schema}.slow_writes VALUES (-1)`);
      })
      .then(
        () => "committed",
        (err: unknown) => err,
      );
    expect(await killer).toBe(true);
    expect(attempts).toBe(1);
    expect(outcome).toBeInstanceOf(DomainError);
    expect((outcome as DomainError).type).toBe("service-unavailable");
    expect((outcome as DomainError).message).toMatch(/may or may not have been applied/);
  });

  it("during COMMIT, as the store reports it: CommitOutcomeUnknownError", async () => {
    const store = createEventStore({ pool: file.env.pool, schema });
    let pid: number | undefined;
    const killing = (async () => {
      while (pid === undefined) await sleep(10);
      await sleep(500);
      await file.env.pool.query("SELECT pg_terminate_backend($1)", [pid]);
    })();
    const err = await store
      .transaction(async (tx) => {
        pid = (await tx.client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!
          .pid;
        await tx.client.query(`INSERT INTO ${schema}.slow_writes VALUES (-2)`);
      })
      .catch((e: unknown) => e);
    await killing;
    expect(err).toBeInstanceOf(CommitOutcomeUnknownError);
  });

  it("while the database refuses connections: ConnectionLost after the retries, a 503 for the caller", async () => {
    const { plainPool } = await import("@argus/platform");
    // Nothing listens on port 1.
    const refused = plainPool({ connectionString: "postgres://x@127.0.0.1:1/x", max: 1 });
    const store = createEventStore({
      pool: refused,
      schema,
      connectionBackoff: { baseMs: 1, maxMs: 5 },
    });
    let attempts = 0;
    const err = await createCommandHandler(store, project)
      .transact(async () => {
        attempts++;
      })
      .catch((e: unknown) => e);
    await refused.end();
    expect(attempts).toBe(0);
    const { toGrpcError } = await import("@argus/platform");
    const wire = toGrpcError(err);
    expect(wire.details).toBe("a dependency of the service is unavailable; retry later");
  });
});
