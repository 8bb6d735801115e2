/**
 * Protobuf's wire format, for the few messages written by hand into one buffer of their exact
 * size (a download's batches, an upload's rows) instead of through the generated encoder, and
 * for messages put together by concatenation (benchmarks). Numbers are non-negative and below
 * 2^32 (lengths, counts, keys); a negative int32 is a 10-byte varint, left to the generated
 * encoder.
 */

/** The bytes `n` takes as a varint. */
export const varintSize = (n: number): number =>
  n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;

/** `n` as a varint at `pos` of `out`; returns the position after it. */
export function writeVarint(out: Uint8Array, pos: number, n: number): number {
  while (n > 0x7f) {
    out[pos++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[pos++] = n;
  return pos;
}

/** `n` as a varint of its own. */
export function varintBytes(n: number): Buffer {
  const out = Buffer.allocUnsafe(varintSize(n));
  writeVarint(out, 0, n);
  return out;
}

/** The bytes of a length-delimited field of `length` bytes, key and length included. */
export const lengthDelimitedSize = (length: number): number => 1 + varintSize(length) + length;

/**
 * A length-delimited field's key and length at `pos`; returns where its `length` bytes go.
 * Field numbers 1 to 15 only: their key is one byte (lengthDelimitedSize counts one).
 */
export function writeLengthHeader(out: Uint8Array, pos: number, field: number, length: number) {
  if (field < 1 || field > 15) throw new RangeError(`field ${field}: a one-byte key is 1 to 15`);
  out[pos++] = (field << 3) | 2;
  return writeVarint(out, pos, length);
}
