import { randomUUID } from "node:crypto";
import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import {
  DomainError,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_TTL_MS,
  type CallContext,
  type Clock,
} from "@argus/platform";
import {
  BeginResponse_Outcome as Outcome,
  type BeginRequest,
  type BeginResponse,
  type CompleteRequest,
  type CompleteResponse,
} from "@argus/proto/identity/v1/idempotency";
import { decideBegin, type KeyRecord } from "./idempotencyKeyRules.ts";

const FINGERPRINT = /^[0-9a-f]{64}$/;
const SCOPE_MAX = 300;
/** Longer than any request the gateway serves; shorter than a day. */
const LEASE_MS_MAX = 10 * 60_000;
// Expired keys are swept at most this often per process, a bounded batch at a time.
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 1_000;
// A Begin whose compare-and-set lost to another attempt reads the key again, at most this often.
const BEGIN_ROUNDS = 3;

interface Row {
  fingerprint: string;
  state: "in_flight" | "done";
  attempt: string;
  lease_until: Date;
  expires_at: Date;
  status: number | null;
  body: Buffer | null;
}

const recordOf = (r: Row): KeyRecord => ({
  fingerprint: r.fingerprint,
  state: r.state,
  leaseUntil: r.lease_until,
  expiresAt: r.expires_at,
});

function checkKey(scope: string, key: string): void {
  if (scope === "" || scope.length > SCOPE_MAX)
    throw new DomainError("invalid-request", "scope must be 1-300 characters");
  if (!IDEMPOTENCY_KEY_PATTERN.test(key))
    throw new DomainError("invalid-request", "key must be 1-255 printable ASCII characters");
}

/**
 * IdempotencyService: the gateway's record of each request sent with an Idempotency-Key.
 * Begin makes no transaction of its own: an insert that only a missing key lets through, else
 * a compare-and-set on the attempt that was read, so two gateways beginning the same key at
 * once start it at most once (the other is told it is in flight).
 */
export function idempotencyKeyHandlers(deps: { pool: Pool; clock: Clock }) {
  let sweptAt = -Infinity;
  const sweep = (ctx: CallContext, now: Date) => {
    if (performance.now() - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = performance.now();
    void tracedQuery(
      deps.pool,
      "sweep idempotency keys",
      `delete from idempotency_keys where ctid in (
         select ctid from idempotency_keys where expires_at <= $1 limit $2)`,
      [now, SWEEP_BATCH],
    ).catch((err: Error) =>
      ctx.logger.warn("sweeping idempotency keys failed", { error: err.message }),
    );
  };

  async function start(req: BeginRequest, now: Date, seen: string | undefined) {
    const attempt = randomUUID();
    const values = [
      req.scope,
      req.key,
      req.fingerprint,
      attempt,
      new Date(now.getTime() + Number(req.leaseMs)),
      now,
      new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
    ];
    const res =
      seen === undefined
        ? await tracedQuery(
            deps.pool,
            "begin idempotency key",
            `insert into idempotency_keys
               (scope, key, fingerprint, state, attempt, lease_until, created_at, expires_at)
             values ($1, $2, $3, 'in_flight', $4, $5, $6, $7)
             on conflict (scope, key) do nothing`,
            values,
          )
        : await tracedQuery(
            deps.pool,
            "take over idempotency key",
            `update idempotency_keys
                set fingerprint = $3, state = 'in_flight', attempt = $4, lease_until = $5,
                    status = null, body = null,
                    -- A key taken over only because its lease ran out keeps its 24 h.
                    created_at = case when expires_at <= $6 then $6 else created_at end,
                    expires_at = case when expires_at <= $6 then $7 else expires_at end
              where scope = $1 and key = $2 and attempt = $8`,
            [...values, seen],
          );
    return res.rowCount === 1 ? attempt : undefined;
  }

  return {
    async begin(req: BeginRequest, ctx: CallContext): Promise<BeginResponse> {
      checkKey(req.scope, req.key);
      if (!FINGERPRINT.test(req.fingerprint))
        throw new DomainError("invalid-request", "fingerprint must be a hex SHA-256");
      if (req.leaseMs < 1n || req.leaseMs > BigInt(LEASE_MS_MAX))
        throw new DomainError("invalid-request", `lease_ms must be 1-${LEASE_MS_MAX}`);
      const now = deps.clock.now();
      sweep(ctx, now);
      const answer = (outcome: Outcome, more: Partial<BeginResponse> = {}): BeginResponse => ({
        outcome,
        attempt: "",
        status: 0,
        body: Buffer.alloc(0),
        ...more,
      });
      let seen: string | undefined;
      for (let round = 0; round < BEGIN_ROUNDS; round++) {
        const attempt = await start(req, now, seen);
        if (attempt) return answer(Outcome.OUTCOME_STARTED, { attempt });
        const { rows } = await tracedQuery<Row>(
          deps.pool,
          "read idempotency key",
          `select fingerprint, state, attempt::text as attempt, lease_until, expires_at, status, body
             from idempotency_keys where scope = $1 and key = $2`,
          [req.scope, req.key],
        );
        const row = rows[0];
        // Swept since the insert met it: insert again.
        if (!row) {
          seen = undefined;
          continue;
        }
        switch (decideBegin(recordOf(row), req.fingerprint, now)) {
          case "replay":
            return answer(Outcome.OUTCOME_REPLAY, { status: row.status!, body: row.body! });
          case "mismatch":
            return answer(Outcome.OUTCOME_MISMATCH);
          case "in_flight":
            return answer(Outcome.OUTCOME_IN_FLIGHT);
          case "start":
            seen = row.attempt;
        }
      }
      // Other attempts kept changing the key under this one: one of them runs it.
      return answer(Outcome.OUTCOME_IN_FLIGHT);
    },

    async complete(req: CompleteRequest): Promise<CompleteResponse> {
      checkKey(req.scope, req.key);
      if (!/^[0-9a-f-]{36}$/.test(req.attempt))
        throw new DomainError("invalid-request", "attempt must be a Begin's attempt");
      // Only the attempt that holds the key completes it: one whose lease ran out and was
      // taken over changes nothing (its answer is the newer attempt's to give).
      if (req.release)
        await tracedQuery(
          deps.pool,
          "release idempotency key",
          `delete from idempotency_keys
            where scope = $1 and key = $2 and attempt = $3 and state = 'in_flight'`,
          [req.scope, req.key, req.attempt],
        );
      else {
        if (req.status < 100 || req.status > 599)
          throw new DomainError("invalid-request", "status must be an HTTP status");
        await tracedQuery(
          deps.pool,
          "complete idempotency key",
          `update idempotency_keys set state = 'done', status = $4, body = $5
            where scope = $1 and key = $2 and attempt = $3 and state = 'in_flight'`,
          [req.scope, req.key, req.attempt, req.status, req.body],
        );
      }
      return {};
    },
  };
}
