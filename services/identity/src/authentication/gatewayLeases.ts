import { GATEWAY_ID } from "@argus/contracts/principalInvalidation";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import { DomainError, checkout, type CallContext } from "@argus/platform";
import type { RenewGatewayLeaseRequest, RenewGatewayLeaseResponse } from "@argus/proto/identity/v1";
import type { Pool } from "pg";

/** A gateway whose lease was live when read, and how long it stays so from that read. */
export interface LiveLease {
  gatewayId: string;
  remainingMs: number;
}

// Leases of gateways gone for good (every restart takes a new id) are swept this long after
// they ran out, at most once a minute per identity process; until then they cost a row each.
const SWEEP_AFTER = "1 minute";
const SWEEP_EVERY_MS = 60_000;

/**
 * Writes the gateway's lease (`now() + leaseMs`, on the database's clock, which is after the
 * gateway sent the renewal) and returns the epoch read `for share` in the same transaction:
 * a bump waits for this transaction or this one waits for the bump, so a renewal committed
 * after a bump returns its epoch, and one committed before it left a lease the bump's reader
 * sees.
 */
async function renewLease(pool: Pool, gatewayId: string, leaseMs: number): Promise<bigint> {
  const client = await checkout(pool);
  let broken: Error | undefined;
  try {
    await client.query("begin");
    try {
      const epoch = await tracedQuery<{ epoch: string }>(
        client,
        "read authz epoch",
        "select epoch from authz_epoch for share",
      );
      await tracedQuery(
        client,
        "renew gateway lease",
        `insert into gateway_leases (gateway_id, expires_at)
         values ($1, now() + $2 * interval '1 millisecond')
         on conflict (gateway_id) do update set expires_at = excluded.expires_at`,
        [gatewayId, leaseMs],
      );
      await client.query("commit");
      return BigInt(epoch.rows[0]!.epoch);
    } catch (err) {
      await client.query("rollback").catch((e: Error) => (broken = e));
      throw err;
    }
  } finally {
    client.release(broken);
  }
}

/** Ends the gateway's lease at once (it stopped serving from its cache). */
async function releaseLease(pool: Pool, gatewayId: string): Promise<void> {
  await tracedQuery(
    pool,
    "release gateway lease",
    "delete from gateway_leases where gateway_id = $1",
    [gatewayId],
  );
}

/**
 * Bumps the epoch in the command's transaction, as its last statement: the row stays locked
 * only from there to the commit, and a renewal waits for that commit (or the bump for it).
 */
export async function bumpEpoch(tx: Queryable): Promise<number> {
  const res = await tracedQuery<{ epoch: string }>(
    tx,
    "bump authz epoch",
    "update authz_epoch set epoch = epoch + 1 returning epoch",
  );
  return Number(res.rows[0]!.epoch);
}

/** The leases live now, each with its time left measured on the database's clock. */
export async function liveLeases(pool: Pool): Promise<LiveLease[]> {
  const res = await tracedQuery<{ gateway_id: string; remaining_ms: number }>(
    pool,
    "read live gateway leases",
    `select gateway_id, (extract(epoch from expires_at - now()) * 1000)::float8 as remaining_ms
       from gateway_leases where expires_at > now()`,
  );
  return res.rows.map((r) => ({ gatewayId: r.gateway_id, remainingMs: r.remaining_ms }));
}

async function sweepLeases(pool: Pool): Promise<void> {
  await tracedQuery(
    pool,
    "sweep gateway leases",
    `delete from gateway_leases where expires_at < now() - interval '${SWEEP_AFTER}'`,
  );
}

/** The RenewGatewayLease RPC: any gateway may hold a lease; it only ever slows writes down. */
export function gatewayLeaseHandler(deps: { pool: Pool; leaseMs: number }) {
  let sweptAt = -Infinity;
  return async function renewGatewayLease(
    req: RenewGatewayLeaseRequest,
    ctx: CallContext,
  ): Promise<RenewGatewayLeaseResponse> {
    if (!GATEWAY_ID.test(req.gatewayId))
      throw new DomainError("invalid-request", "gateway_id must be 1-64 of [A-Za-z0-9_-]");
    if (req.release) {
      await releaseLease(deps.pool, req.gatewayId);
      return { epoch: 0n, leaseMs: 0n };
    }
    const epoch = await renewLease(deps.pool, req.gatewayId, deps.leaseMs);
    if (performance.now() - sweptAt > SWEEP_EVERY_MS) {
      sweptAt = performance.now();
      void sweepLeases(deps.pool).catch((err: Error) =>
        ctx.logger.warn("sweeping gateway leases failed", { error: err.message }),
      );
    }
    return { epoch, leaseMs: BigInt(deps.leaseMs) };
  };
}
