import { randomBytes } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, uuidv7 } from "@argus/platform";

/**
 * Where a bulk upload's rows wait for its end (migration 0007): each chunk is committed as it
 * arrives, so an upload of any size needs no long transaction and no memory beyond a chunk,
 * and nothing a reader looks at sees it. The transaction that appends the upload's event claims
 * its import (`claimImport`): from then on the chunks are the rows that event stands for. An
 * import nobody claimed is a failed upload, dropped at once when the stream fails and, should
 * the process die first, by the sweep once idle.
 */

/** Rows of a chunk, as JSON text, before it is written: about 1 MiB each. */
const CHUNK_BYTES = 1 << 20;

/** An unclaimed import this long without a chunk is abandoned (its stream is long gone). */
const IDLE_IMPORT_MS = 15 * 60_000;

export type ImportKind = "examples" | "runs";

/** An upload's rows on their way into `import_chunks`, a JSON array text per chunk. */
export interface Staging {
  readonly importId: string;
  /** Adds one row (a JSON object's text); writes a chunk when it is full. */
  add(rowJson: string): Promise<void>;
  /** Writes what is left. */
  flush(): Promise<void>;
  /** Drops the import and its chunks (an upload that failed); never throws. */
  drop(): Promise<void>;
}

export async function beginImport(
  pool: Pool,
  kind: ImportKind,
  accountId: string,
): Promise<Staging> {
  const importId = uuidv7();
  await tracedQuery(
    pool,
    "import begin",
    `insert into imports (id, kind, account_id, started_at, touched_at)
     values ($1, $2, $3, now(), now())`,
    [importId, kind, accountId],
  );
  let parts: string[] = [];
  let bytes = 0;
  let seq = 0;
  const flush = async () => {
    if (parts.length === 0) return;
    const rows = `[${parts.join(",")}]`;
    parts = [];
    bytes = 0;
    // The import's row, touched in the same statement: a sweep that dropped it first makes
    // this fail on the foreign key, never leaves a chunk behind.
    await tracedQuery(
      pool,
      "import chunk",
      `with touched as (update imports set touched_at = now()
                         where id = $1 and committed_at is null returning id)
       insert into import_chunks (import_id, seq, rows) select id, $2, $3 from touched`,
      [importId, seq++, rows],
    );
  };
  return {
    importId,
    async add(rowJson) {
      parts.push(rowJson);
      bytes += rowJson.length;
      if (bytes >= CHUNK_BYTES) await flush();
    },
    flush,
    async drop() {
      parts = [];
      await tracedQuery(
        pool,
        "import drop",
        "delete from imports where id = $1 and committed_at is null",
        [importId],
      ).catch(() => undefined);
    },
  };
}

/**
 * In the transaction that appends the import's event: marks it committed, so neither a drop
 * nor the sweep can take its chunks. An import already swept is a failed upload.
 */
export async function claimImport(client: PoolClient, importId: string): Promise<void> {
  const res = await tracedQuery(
    client,
    "import claim",
    "update imports set committed_at = now() where id = $1 and committed_at is null",
    [importId],
  );
  if (res.rowCount !== 1)
    throw new DomainError(
      "service-unavailable",
      "the upload was idle too long and was dropped; send it again",
    );
}

/** Drops imports no event claimed and no chunk touched for IDLE_IMPORT_MS. */
export async function sweepImports(pool: Pool, idleMs = IDLE_IMPORT_MS): Promise<number> {
  const res = await tracedQuery(
    pool,
    "import sweep",
    `delete from imports
      where committed_at is null and touched_at < now() - make_interval(secs => $1 / 1000.0)`,
    [idleMs],
  );
  return res.rowCount ?? 0;
}

/**
 * Fresh uuid v7 ids in ascending order, for every row of one upload: the time of the upload,
 * then a counter from a random start (a list in id order is the upload's order, and two uploads
 * in the same millisecond do not meet).
 */
export function idSequence(now: Date): () => string {
  const head = Buffer.alloc(8);
  head.writeUIntBE(now.getTime(), 0, 6);
  randomBytes(2).copy(head, 6);
  head[6] = (head[6]! & 0x0f) | 0x70;
  const hex = head.toString("hex");
  // 62 bits after the variant: start low enough that no upload runs out of them.
  let counter = BigInt(`0x${randomBytes(8).toString("hex")}`) & ((1n << 61n) - 1n);
  return () => {
    const low = (counter++ | (1n << 63n)).toString(16).padStart(16, "0");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${low.slice(0, 4)}-${low.slice(4)}`;
  };
}
