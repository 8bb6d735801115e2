import {
  IDEMPOTENCY_KEY_TTL_MS,
  RequestAlreadyApplied,
  type RecordedRequest,
  type RequestKey,
} from "@argus/platform";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery, type Queryable } from "../schema/tracedQuery.ts";

/**
 * The request keys a service applied (docs/architecture.md, "Safe retries"): one row per
 * caller's key and RPC, inserted in the transaction of the command's events, so the key is
 * recorded if and only if the effect is. A second execution of the request meets the row (or
 * waits on the first's uncommitted insert, then meets it) and appends nothing. Rows past
 * `expires_at` count as absent and are taken over by a new request with the same key.
 */

/**
 * Records `key` in the command's transaction; throws RequestAlreadyApplied when a live row
 * holds it (the request was applied before, or by a concurrent execution that committed
 * first). An expired row is taken over.
 */
export async function recordRequest(
  tx: Queryable,
  schema: string,
  key: RequestKey,
  now: Date,
): Promise<void> {
  const res = await tracedQuery(
    tx,
    "record request key",
    `INSERT INTO ${quoteSchema(schema)}.applied_requests
       (scope, key, method, fingerprint, applied_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (scope, key, method) DO UPDATE
       SET fingerprint = excluded.fingerprint, applied_at = excluded.applied_at,
           expires_at = excluded.expires_at, reply = NULL
       WHERE applied_requests.expires_at <= excluded.applied_at
     RETURNING 1`,
    [
      key.scope,
      key.key,
      key.method,
      key.fingerprint,
      now,
      new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
    ],
  );
  if (res.rowCount === 0) throw new RequestAlreadyApplied();
}

/** What is recorded for the key, unless it expired by `now`. */
export async function findRequest(
  db: Queryable,
  schema: string,
  key: RequestKey,
  now: Date,
): Promise<RecordedRequest | undefined> {
  const res = await tracedQuery<{ fingerprint: string; reply: Buffer | null }>(
    db,
    "find request key",
    `SELECT fingerprint, reply FROM ${quoteSchema(schema)}.applied_requests
      WHERE scope = $1 AND key = $2 AND method = $3 AND expires_at > $4`,
    [key.scope, key.key, key.method, now],
  );
  return res.rows[0];
}

/** Keeps the RPC's answer for a re-forwarded request (the first answer may have been lost). */
export async function storeReply(
  db: Queryable,
  schema: string,
  key: RequestKey,
  reply: Buffer,
): Promise<void> {
  await tracedQuery(
    db,
    "store request reply",
    `UPDATE ${quoteSchema(schema)}.applied_requests SET reply = $4
      WHERE scope = $1 AND key = $2 AND method = $3`,
    [key.scope, key.key, key.method, reply],
  );
}

/** Deletes up to `limit` rows that expired by `now`; returns how many. */
export async function sweepRequests(
  db: Queryable,
  schema: string,
  now: Date,
  limit = 1000,
): Promise<number> {
  const s = quoteSchema(schema);
  const res = await tracedQuery(
    db,
    "sweep request keys",
    `DELETE FROM ${s}.applied_requests WHERE ctid IN (
       SELECT ctid FROM ${s}.applied_requests WHERE expires_at <= $1 LIMIT $2)`,
    [now, limit],
  );
  return res.rowCount ?? 0;
}
