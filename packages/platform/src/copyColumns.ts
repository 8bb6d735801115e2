import type { ColumnBatch, TextColumn } from "@argus/proto/dataset/v1/bulk";

/**
 * `COPY (…) TO STDOUT (FORMAT binary)` of text columns → column batches in Arrow Utf8 layout.
 * A text value's binary form is its UTF-8 bytes behind a length: they are gathered, not
 * decoded, so a download never turns a row into strings on this side.
 */

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

class CopyFormatError extends Error {}

export interface BatchLimits {
  rows: number;
  /** Bytes of values per batch (approximately: a batch ends after the row that passes it). */
  bytes: number;
}

class ColumnBuilder {
  values: (Buffer | null)[] = [];
  bytes = 0;
  nulls = 0;

  push(v: Buffer | null) {
    this.values.push(v);
    if (v === null) this.nulls++;
    else this.bytes += v.length;
  }

  take(): TextColumn {
    const n = this.values.length;
    const offsets = new Int32Array(n + 1);
    const data = Buffer.allocUnsafe(this.bytes);
    const validity = this.nulls > 0 ? new Uint8Array((n + 7) >> 3) : new Uint8Array(0);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const v = this.values[i]!;
      if (v !== null) {
        v.copy(data, at);
        at += v.length;
        if (this.nulls > 0) validity[i >> 3]! |= 1 << (i & 7);
      }
      offsets[i + 1] = at;
    }
    const column: TextColumn = {
      offsets: Buffer.from(offsets.buffer, offsets.byteOffset, offsets.byteLength),
      data,
      validity: Buffer.from(validity.buffer, validity.byteOffset, validity.byteLength),
      nullCount: this.nulls,
    };
    this.values = [];
    this.bytes = 0;
    this.nulls = 0;
    return column;
  }
}

/**
 * Batches of `columns` text columns from a binary COPY's bytes, each of at most `limits.rows`
 * rows and about `limits.bytes` bytes, made as the consumer asks for them.
 */
export async function* columnBatches(
  copy: AsyncIterable<Buffer>,
  columns: number,
  limits: BatchLimits,
): AsyncGenerator<ColumnBatch> {
  const builders = Array.from({ length: columns }, () => new ColumnBuilder());
  let rows = 0;
  let bytes = 0;
  let buf: Buffer = Buffer.alloc(0);
  let pos = 0;
  let header = true;
  let done = false;
  const take = (): ColumnBatch => {
    const batch = { rowCount: rows, columns: builders.map((b) => b.take()) };
    rows = 0;
    bytes = 0;
    return batch;
  };

  for await (const chunk of copy) {
    buf = pos < buf.length ? Buffer.concat([buf.subarray(pos), chunk]) : chunk;
    pos = 0;
    if (header) {
      if (buf.length < SIGNATURE.length + 8) continue;
      if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE))
        throw new CopyFormatError("not a binary COPY");
      const extension = buf.readUInt32BE(SIGNATURE.length + 4);
      if (buf.length < SIGNATURE.length + 8 + extension) continue;
      pos = SIGNATURE.length + 8 + extension;
      header = false;
    }
    for (;;) {
      if (buf.length - pos < 2) break;
      const count = buf.readInt16BE(pos);
      if (count === -1) {
        done = true;
        pos += 2;
        break;
      }
      if (count !== columns) throw new CopyFormatError(`a row has ${count} fields, not ${columns}`);
      // The whole row must be here before any of it is taken.
      let at = pos + 2;
      let whole = true;
      for (let c = 0; c < count; c++) {
        if (buf.length - at < 4) {
          whole = false;
          break;
        }
        const len = buf.readInt32BE(at);
        at += 4 + Math.max(0, len);
        if (at > buf.length) {
          whole = false;
          break;
        }
      }
      if (!whole) break;
      at = pos + 2;
      for (let c = 0; c < count; c++) {
        const len = buf.readInt32BE(at);
        at += 4;
        if (len < 0) builders[c]!.push(null);
        else {
          builders[c]!.push(buf.subarray(at, at + len));
          at += len;
          bytes += len;
        }
      }
      pos = at;
      rows++;
      if (rows >= limits.rows || bytes >= limits.bytes) yield take();
    }
    if (done) break;
  }
  if (!done) throw new CopyFormatError("the COPY ended before its trailer");
  if (rows > 0) yield take();
}
