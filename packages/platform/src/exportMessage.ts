import { ExportMessage, type ColumnBatch, type TextColumn } from "@argus/proto/dataset/v1/bulk";
import { varintSize, writeVarint as varint } from "./wire.ts";

/**
 * A download's `ExportMessage` as protobuf bytes, for the gRPC server's `responseSerialize`.
 * A batch (the bulk of a download: ~1 MiB of column buffers) is measured first and written into
 * one buffer of its size, each column's bytes copied once; the generated encoder grows its
 * buffer by doubling (zero-filled, each growth a copy), shifts every column's bytes to make
 * room for the length before them, and copies the whole message once more at the end, which
 * made it most of a download's protobuf cost and much of its garbage. The header, small, goes
 * through the generated encoder. The bytes are the generated encoder's (the same fields, in
 * the same order, defaults left out).
 */
export function encodeExportMessage(message: ExportMessage): Buffer {
  if (message.part?.$case !== "batch") return Buffer.from(ExportMessage.encode(message).finish());
  const batch = message.part.value;
  // Negative int32s are 10-byte varints: left to the generated encoder (never sent).
  if (batch.rowCount < 0 || batch.columns.some((c) => c.nullCount < 0))
    return Buffer.from(ExportMessage.encode(message).finish());
  const sizes = batch.columns.map(columnSize);
  let batchSize = batch.rowCount !== 0 ? 1 + varintSize(batch.rowCount) : 0;
  for (const size of sizes) batchSize += 1 + varintSize(size) + size;
  const out = Buffer.allocUnsafe(1 + varintSize(batchSize) + batchSize);
  let pos = 0;
  out[pos++] = (2 << 3) | 2; // ExportMessage.batch
  pos = varint(out, pos, batchSize);
  if (batch.rowCount !== 0) {
    out[pos++] = 1 << 3; // ColumnBatch.row_count
    pos = varint(out, pos, batch.rowCount);
  }
  batch.columns.forEach((c, i) => {
    out[pos++] = (2 << 3) | 2; // ColumnBatch.columns
    pos = varint(out, pos, sizes[i]!);
    pos = bytes(out, pos, 1, c.offsets);
    pos = bytes(out, pos, 2, c.data);
    pos = bytes(out, pos, 3, c.validity);
    if (c.nullCount !== 0) {
      out[pos++] = 4 << 3;
      pos = varint(out, pos, c.nullCount);
    }
    pos = bytes(out, pos, 5, c.fixed);
  });
  if (pos !== out.length)
    throw new Error(`an export batch measured ${out.length} bytes, wrote ${pos}`);
  return out;
}

const bytesSize = (b: Uint8Array): number =>
  b.length === 0 ? 0 : 1 + varintSize(b.length) + b.length;

const columnSize = (c: TextColumn): number =>
  bytesSize(c.offsets) +
  bytesSize(c.data) +
  bytesSize(c.validity) +
  (c.nullCount !== 0 ? 1 + varintSize(c.nullCount) : 0) +
  bytesSize(c.fixed);

/** A `bytes` field, left out when empty (proto3's default). */
function bytes(out: Buffer, pos: number, field: number, b: Uint8Array): number {
  if (b.length === 0) return pos;
  out[pos++] = (field << 3) | 2;
  pos = varint(out, pos, b.length);
  out.set(b, pos);
  return pos + b.length;
}

class ExportMessageError extends Error {}

interface Reader {
  buf: Uint8Array;
  pos: number;
}

/**
 * A download's `ExportMessage` from protobuf bytes, for the gRPC client's `responseDeserialize`:
 * as the generated decoder reads it, except that a batch's column buffers are views of `bytes`
 * rather than copies of them (a batch is read once, into Arrow, while its message is alive),
 * one copy of every byte of a download fewer. Any other message (a header) goes through the
 * generated decoder.
 */
export function decodeExportMessage(bytes: Uint8Array): ExportMessage {
  const r: Reader = { buf: bytes, pos: 0 };
  if (bytes.length === 0 || bytes[0] !== ((2 << 3) | 2)) return ExportMessage.decode(bytes);
  r.pos = 1;
  const end = lengthEnd(r);
  const batch = readBatch(r, end);
  // Anything after the batch (never sent): the generated decoder's answer.
  if (r.pos !== bytes.length) return ExportMessage.decode(bytes);
  return { part: { $case: "batch", value: batch } };
}

const EMPTY = Buffer.alloc(0);

function readBatch(r: Reader, end: number): ColumnBatch {
  const batch: ColumnBatch = { rowCount: 0, columns: [] };
  while (r.pos < end) {
    const tag = readVarint(r);
    if (tag === 1 << 3) batch.rowCount = int32(readVarint(r));
    else if (tag === ((2 << 3) | 2)) {
      const columnEnd = lengthEnd(r);
      const c: TextColumn = {
        offsets: EMPTY,
        data: EMPTY,
        validity: EMPTY,
        nullCount: 0,
        fixed: EMPTY,
      };
      while (r.pos < columnEnd) {
        const t = readVarint(r);
        if (t === 4 << 3) c.nullCount = int32(readVarint(r));
        else if ((t & 7) === 2 && t >>> 3 >= 1 && t >>> 3 <= 5) {
          const to = lengthEnd(r);
          const view = Buffer.from(r.buf.buffer, r.buf.byteOffset + r.pos, to - r.pos);
          r.pos = to;
          const field = t >>> 3;
          if (field === 1) c.offsets = view;
          else if (field === 2) c.data = view;
          else if (field === 3) c.validity = view;
          else if (field === 5) c.fixed = view;
        } else skip(r, t);
      }
      if (r.pos !== columnEnd) throw new ExportMessageError("a column overruns its length");
      batch.columns.push(c);
    } else skip(r, tag);
  }
  if (r.pos !== end) throw new ExportMessageError("a batch overruns its length");
  return batch;
}

/** An int32 field's varint (its low 32 bits, signed). */
const int32 = (n: number) => n | 0;

/** A varint of up to 64 bits, as a number; its bits above 32 are dropped (int32, lengths). */
function readVarint(r: Reader): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (r.pos >= r.buf.length) throw new ExportMessageError("a truncated varint");
    const b = r.buf[r.pos++]!;
    if (shift < 32) result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return result % 2 ** 32;
    shift += 7;
    if (shift > 63) throw new ExportMessageError("a varint of more than 10 bytes");
  }
}

/** A length-delimited field's end, checked against the message's. */
function lengthEnd(r: Reader): number {
  const length = readVarint(r);
  const end = r.pos + length;
  if (end > r.buf.length) throw new ExportMessageError("a field overruns the message");
  return end;
}

function skip(r: Reader, tag: number) {
  const wire = tag & 7;
  if (wire === 0) readVarint(r);
  else if (wire === 1) r.pos += 8;
  else if (wire === 2) r.pos = lengthEnd(r);
  else if (wire === 5) r.pos += 4;
  else throw new ExportMessageError(`wire type ${wire} is not read`);
  if (r.pos > r.buf.length) throw new ExportMessageError("a field overruns the message");
}
