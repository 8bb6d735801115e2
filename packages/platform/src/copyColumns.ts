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

/**
 * One column of the batch being made: each value's bytes copied as the row is read into one
 * growing buffer, its end in the offsets, its presence in the validity bits. No object is made
 * per value (a view per value was most of a download's garbage).
 */
class ColumnBuilder {
  private data = Buffer.allocUnsafe(1 << 16);
  private offsets = new Int32Array(1025);
  private validity = new Uint8Array(128);
  private rows = 0;
  private bytes = 0;
  private nulls = 0;

  /** The value at `start` of `source`, `length` bytes long; a negative length is a null. */
  push(source: Buffer, start: number, length: number) {
    if (this.rows + 2 > this.offsets.length) {
      const offsets = new Int32Array(this.offsets.length * 2);
      offsets.set(this.offsets);
      this.offsets = offsets;
      const validity = new Uint8Array(offsets.length >> 2);
      validity.set(this.validity);
      this.validity = validity;
    }
    if (length < 0) this.nulls++;
    else {
      if (this.bytes + length > this.data.length) {
        const data = Buffer.allocUnsafe(Math.max(this.data.length * 2, this.bytes + length));
        this.data.copy(data, 0, 0, this.bytes);
        this.data = data;
      }
      source.copy(this.data, this.bytes, start, start + length);
      this.bytes += length;
      this.validity[this.rows >> 3]! |= 1 << (this.rows & 7);
    }
    this.rows++;
    this.offsets[this.rows] = this.bytes;
  }

  /** The column so far, in buffers of its own; the builder starts again, empty. */
  take(): TextColumn {
    const n = this.rows;
    const offsets = this.offsets.slice(0, n + 1);
    const column: TextColumn = {
      offsets: Buffer.from(offsets.buffer, offsets.byteOffset, offsets.byteLength),
      data: Buffer.from(this.data.subarray(0, this.bytes)),
      validity:
        this.nulls > 0 ? Buffer.from(this.validity.subarray(0, (n + 7) >> 3)) : Buffer.alloc(0),
      nullCount: this.nulls,
    };
    this.validity.fill(0, 0, (n + 8) >> 3);
    this.rows = 0;
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
        builders[c]!.push(buf, at, len);
        if (len > 0) {
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
