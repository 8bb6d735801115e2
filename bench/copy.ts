import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
export const copyText = (v: string): string =>
  v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");

/**
 * ONE `COPY … FROM STDIN` of `rows` (COPY text, a line per row) on a connection of `pool`: the
 * least a database does to store them, the floor of the write benchmarks. Throws unless it
 * wrote `expected` rows.
 */
export async function copyRowsInto(
  pool: pg.Pool,
  copySql: string,
  rows: string,
  expected: number,
): Promise<void> {
  const client = await pool.connect();
  try {
    const copy = client.query(copyFrom(copySql));
    await pipeline(Readable.from([rows]), copy);
    if (copy.rowCount !== expected) throw new Error(`COPY wrote ${copy.rowCount} rows`);
  } finally {
    client.release();
  }
}

/** `fn` in one transaction on a connection of `pool`: committed when it returns, else rolled back. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback");
    throw err;
  } finally {
    client.release();
  }
}
