import { invalid } from "./requests.ts";

/**
 * A bounds check of Arrow IPC message headers before apache-arrow decodes them. Its decoder
 * trusts the flatbuffer's vector lengths: a header whose `custom_metadata`, `fields` or
 * `children` count was overwritten with 2^31 makes it loop that many times, synchronously,
 * stopping the whole gateway (the fuzz step found one with a single byte changed). Here every
 * vector the decoder loops over must fit in the header, and a schema may name at most
 * MAX_FIELDS fields (children included) at most MAX_DEPTH deep, so decoding is bounded by the
 * header's size. Nothing is decoded; a header that passes is read by apache-arrow as before.
 */

const MAX_FIELDS = 10_000;
const MAX_DEPTH = 64;
/**
 * Rows a record batch may claim beyond what its body can hold. Every column but one of Arrow's
 * Null type spends at least a bit a row in the body, so an honest uncompressed batch claims at
 * most 8 rows a body byte; this many more let a frame of all-null columns through (pandas gives
 * an all-None column that type), and still bound a forged count's row loop to milliseconds.
 */
const ROWS_WITHOUT_BODY = 1 << 20;

/** MessageHeader union tags (Message.fbs). */
const SCHEMA = 1;
const DICTIONARY_BATCH = 2;
const RECORD_BATCH = 3;

class Flatbuffer {
  private readonly view: DataView;
  fields = 0;
  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private check(at: number, size: number): void {
    if (!Number.isSafeInteger(at) || at < 0 || at + size > this.view.byteLength)
      throw invalid("not Arrow IPC: a message header points outside itself");
  }
  private u32(at: number): number {
    this.check(at, 4);
    return this.view.getUint32(at, true);
  }
  /** The offset of a table's field (vtable slot `vt`) from the table, 0 when absent. */
  private slot(table: number, vt: number): number {
    const vtable = table - this.view.getInt32((this.check(table, 4), table), true);
    this.check(vtable, 4);
    const size = this.view.getUint16(vtable, true);
    if (vt >= size) return 0;
    this.check(vtable + vt, 2);
    return this.view.getUint16(vtable + vt, true);
  }
  root(): number {
    return this.u32(0);
  }
  /** The table a field refers to, or undefined. */
  table(table: number, vt: number): number | undefined {
    const o = this.slot(table, vt);
    if (o === 0) return undefined;
    const at = table + o;
    return at + this.u32(at);
  }
  /** A little-endian int64 at an absolute offset (a struct's member). */
  i64At(at: number): bigint {
    this.check(at, 8);
    return this.view.getBigInt64(at, true);
  }
  i64(table: number, vt: number): bigint {
    const o = this.slot(table, vt);
    if (o === 0) return 0n;
    this.check(table + o, 8);
    return this.view.getBigInt64(table + o, true);
  }
  u8(table: number, vt: number): number {
    const o = this.slot(table, vt);
    if (o === 0) return 0;
    this.check(table + o, 1);
    return this.view.getUint8(table + o);
  }
  /** A vector field's elements' start and count, checked to fit `size` bytes each. */
  vector(table: number, vt: number, size: number): { start: number; length: number } {
    const o = this.slot(table, vt);
    if (o === 0) return { start: 0, length: 0 };
    const at = table + o;
    const start = at + this.u32(at);
    const length = this.u32(start);
    this.check(start + 4, length * size);
    return { start: start + 4, length };
  }
  /** The tables of a vector of tables. */
  tables(table: number, vt: number): number[] {
    const { start, length } = this.vector(table, vt, 4);
    return Array.from({ length }, (_, i) => start + i * 4 + this.u32(start + i * 4));
  }
}

/** Field: children (slot 5), custom_metadata (slot 6). */
function checkField(fb: Flatbuffer, field: number, depth: number): void {
  if (++fb.fields > MAX_FIELDS || depth > MAX_DEPTH)
    throw invalid(
      `not Arrow IPC that is read here: its schema has more than ${MAX_FIELDS} fields or nests deeper than ${MAX_DEPTH}`,
    );
  fb.vector(field, 16, 4);
  for (const child of fb.tables(field, 14)) checkField(fb, child, depth + 1);
}

/**
 * RecordBatch: length (slot 4), nodes (slot 6: FieldNode structs of length and null_count),
 * buffers (slot 8), variadicBufferCounts (slot 12). apache-arrow believes the row counts: a
 * batch of one row whose count was overwritten with 2^31 decodes, and a reader's row loop then
 * runs for a minute over values that are not there. So no count may pass what the body holds.
 */
function checkRecordBatch(fb: Flatbuffer, batch: number, bodyLength: number): void {
  const most = BigInt(Math.max(8 * bodyLength, ROWS_WITHOUT_BODY));
  const rows = (count: bigint): void => {
    if (count < 0n || count > most)
      throw invalid(
        `not Arrow IPC that is read here: a record batch claims ${count} rows, more than its ${bodyLength} bytes of values hold`,
      );
  };
  rows(fb.i64(batch, 4));
  const nodes = fb.vector(batch, 6, 16);
  for (let i = 0; i < nodes.length; i++) {
    const length = fb.i64At(nodes.start + i * 16);
    rows(length);
    const nulls = fb.i64At(nodes.start + i * 16 + 8);
    if (nulls < 0n || nulls > length)
      throw invalid("not Arrow IPC: a column claims more nulls than rows");
  }
  fb.vector(batch, 8, 16);
  fb.vector(batch, 12, 8);
}

/**
 * One IPC message header (a `Message` flatbuffer): throws a 400 if its vectors overrun it, or
 * if it claims more rows than `bodyBytes` (the bytes of body that really follow it) can hold.
 * Answers its bodyLength (past any stream when it cannot be one).
 */
export function checkIpcMessage(header: Uint8Array, bodyBytes: number): number {
  const fb = new Flatbuffer(header);
  const message = fb.root();
  fb.vector(message, 12, 4); // custom_metadata
  const bodyLength = fb.i64(message, 10);
  const safeBodyLength =
    bodyLength < 0n || bodyLength > BigInt(Number.MAX_SAFE_INTEGER)
      ? Number.MAX_SAFE_INTEGER
      : Number(bodyLength);
  const body = fb.table(message, 8);
  if (body !== undefined)
    switch (fb.u8(message, 6)) {
      case SCHEMA:
        fb.vector(body, 8, 4); // custom_metadata
        fb.vector(body, 10, 8); // features
        for (const field of fb.tables(body, 6)) checkField(fb, field, 0);
        break;
      case RECORD_BATCH:
        checkRecordBatch(fb, body, Math.min(safeBodyLength, bodyBytes));
        break;
      case DICTIONARY_BATCH: {
        const data = fb.table(body, 6);
        if (data !== undefined) checkRecordBatch(fb, data, Math.min(safeBodyLength, bodyBytes));
        break;
      }
    }
  return safeBodyLength;
}

/**
 * Every message header of an IPC stream (continuation marker, header length, header, body),
 * up to its end-of-stream marker. Framing faults are left to apache-arrow's reader, which
 * names them; only the headers it would decode are checked.
 */
export function checkIpcStream(stream: Uint8Array): void {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  let at = 0;
  while (at + 4 <= stream.length) {
    let length = view.getInt32(at, true);
    at += 4;
    if (length === -1) {
      if (at + 4 > stream.length) return;
      length = view.getInt32(at, true);
      at += 4;
    }
    if (length <= 0 || at + length > stream.length) return;
    const bodyLength = checkIpcMessage(
      stream.subarray(at, at + length),
      stream.length - (at + length),
    );
    at += length + bodyLength;
  }
}
