import type { ColumnBatch, TextColumn } from "@argus/proto/dataset/v1/bulk";

/**
 * `COPY (…) TO STDOUT (FORMAT binary)` of text columns → column batches in Arrow Utf8 layout.
 * A text value's binary form is its UTF-8 bytes behind a length: they are gathered, not
 * decoded, so a download never turns a row into strings on this side. Columns of `bigint` or
 * `float8` may be asked for as fixed-width instead (`TextColumn.fixed`): their binary form is
 * 8 big-endian bytes, turned around into the little-endian Arrow layout, never into text.
 */

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

class CopyFormatError extends Error {}

/** What reading a row can find besides its end: not all of it yet, or the COPY's trailer. */
const PARTIAL = -1;
const TRAILER = -2;

const EMPTY = Buffer.alloc(0);

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
      fixed: EMPTY,
    };
    this.validity.fill(0, 0, (n + 8) >> 3);
    this.rows = 0;
    this.bytes = 0;
    this.nulls = 0;
    return column;
  }
}

/**
 * One fixed-width column of the batch being made: each value's 8 big-endian bytes (`bigint`,
 * `float8`) swapped into place, a null as 8 zero bytes.
 */
class FixedBuilder {
  private values = Buffer.allocUnsafe(8 * 1024);
  private validity = new Uint8Array(128);
  private rows = 0;
  private nulls = 0;

  push(source: Buffer, start: number, length: number) {
    if (length !== 8 && length >= 0)
      throw new CopyFormatError(`a fixed-width value is ${length} bytes, not 8`);
    if (8 * (this.rows + 1) > this.values.length) {
      const values = Buffer.allocUnsafe(this.values.length * 2);
      this.values.copy(values, 0, 0, 8 * this.rows);
      this.values = values;
      const validity = new Uint8Array(this.values.length >> 6);
      validity.set(this.validity);
      this.validity = validity;
    }
    const at = 8 * this.rows;
    if (length < 0) {
      this.nulls++;
      this.values.fill(0, at, at + 8);
    } else {
      for (let i = 0; i < 8; i++) this.values[at + i] = source[start + 7 - i]!;
      this.validity[this.rows >> 3]! |= 1 << (this.rows & 7);
    }
    this.rows++;
  }

  take(): TextColumn {
    const n = this.rows;
    const column: TextColumn = {
      offsets: EMPTY,
      data: EMPTY,
      validity:
        this.nulls > 0 ? Buffer.from(this.validity.subarray(0, (n + 7) >> 3)) : Buffer.alloc(0),
      nullCount: this.nulls,
      fixed: Buffer.from(this.values.subarray(0, 8 * n)),
    };
    this.validity.fill(0, 0, (n + 8) >> 3);
    this.rows = 0;
    this.nulls = 0;
    return column;
  }
}

/**
 * Batches of `columns` text columns from a binary COPY's bytes, each of at most `limits.rows`
 * rows and about `limits.bytes` bytes, made as the consumer asks for them. The columns whose
 * index `fixed` holds are 8-byte values (`bigint`, `float8`), sent fixed-width.
 */
export async function* columnBatches(
  copy: AsyncIterable<Buffer>,
  columns: number,
  limits: BatchLimits,
  fixed: ReadonlySet<number> = new Set(),
): AsyncGenerator<ColumnBatch> {
  const builders = Array.from({ length: columns }, (_, c) =>
    fixed.has(c) ? new FixedBuilder() : new ColumnBuilder(),
  );
  let rows = 0;
  let bytes = 0;
  const full = () => rows >= limits.rows || bytes >= limits.bytes;
  const take = (): ColumnBatch => {
    const batch = { rowCount: rows, columns: builders.map((b) => b.take()) };
    rows = 0;
    bytes = 0;
    return batch;
  };

  /** The row at `pos` of `b` into the builders: its end, PARTIAL when not all here, or TRAILER. */
  const readRow = (b: Buffer, pos: number): number => {
    if (b.length - pos < 2) return PARTIAL;
    const count = b.readInt16BE(pos);
    if (count === -1) return TRAILER;
    if (count !== columns) throw new CopyFormatError(`a row has ${count} fields, not ${columns}`);
    // The whole row must be here before any of it is taken.
    let at = pos + 2;
    for (let c = 0; c < count; c++) {
      if (b.length - at < 4) return PARTIAL;
      at += 4 + Math.max(0, b.readInt32BE(at));
      if (at > b.length) return PARTIAL;
    }
    at = pos + 2;
    for (let c = 0; c < count; c++) {
      const len = b.readInt32BE(at);
      at += 4;
      builders[c]!.push(b, at, len);
      if (len > 0) {
        at += len;
        bytes += len;
      }
    }
    rows++;
    return at;
  };

  // The bytes of earlier chunks not read yet: the header, or a row begun and not ended. A
  // chunk is read where it lies; only such a row is joined with the start of the next chunk,
  // as little of it as completes the row (joining whole chunks copied every byte once more).
  let rest: Buffer = Buffer.alloc(0);
  let header = true;
  let done = false;
  for await (const chunk of copy) {
    let b = chunk;
    let pos = 0;
    if (header) {
      b = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      rest = b;
      if (b.length < SIGNATURE.length + 8) continue;
      if (!b.subarray(0, SIGNATURE.length).equals(SIGNATURE))
        throw new CopyFormatError("not a binary COPY");
      const extension = b.readUInt32BE(SIGNATURE.length + 4);
      if (b.length < SIGNATURE.length + 8 + extension) continue;
      pos = SIGNATURE.length + 8 + extension;
      header = false;
    } else if (rest.length > 0) {
      let joined = Math.min(chunk.length, 1024);
      for (;;) {
        const head = Buffer.concat([rest, chunk.subarray(0, joined)]);
        const end = readRow(head, 0);
        if (end === TRAILER) done = true;
        else if (end === PARTIAL) {
          if (joined < chunk.length) {
            joined = Math.min(chunk.length, joined * 4);
            continue;
          }
          // Still not whole: all of this chunk joins what is left.
          rest = head;
        } else {
          // The row ended within this chunk (what was left held no whole row).
          pos = end - rest.length;
          rest = Buffer.alloc(0);
          if (full()) yield take();
        }
        break;
      }
      if (done) break;
      if (rest.length > 0) continue;
    }
    for (;;) {
      const end = readRow(b, pos);
      if (end === PARTIAL) break;
      if (end === TRAILER) {
        done = true;
        break;
      }
      pos = end;
      if (full()) yield take();
    }
    if (done) break;
    rest = b.subarray(pos);
  }
  if (!done) throw new CopyFormatError("the COPY ended before its trailer");
  if (rows > 0) yield take();
}
