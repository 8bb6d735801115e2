import { FlightDescriptor } from "@argus/proto/flight";
import { varintSize, writeVarint } from "@argus/platform/wire";

/**
 * `arrow.flight.protocol.FlightData` on the wire, by hand: a batch's body is most of a Flight
 * stream's bytes, and the generated codec copies every bytes field (twice on the way out). Here
 * a decoded body is a view of the gRPC message and an encoded one is copied once, into it.
 */
export interface FlightData {
  descriptor?: FlightDescriptor | undefined;
  /** An Arrow IPC Message flatbuffer (Schema, RecordBatch or DictionaryBatch); may be empty. */
  header: Uint8Array;
  appMetadata: Uint8Array;
  /** The message's body: its buffers, each padded to 8 bytes, in order. */
  body: Uint8Array;
}

const DESCRIPTOR = 1;
const HEADER = 2;
const APP_METADATA = 3;
const BODY = 1000;
const EMPTY = new Uint8Array(0);

class WireError extends Error {}

function readVarint(buf: Uint8Array, at: { pos: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (at.pos >= buf.length) throw new WireError("truncated varint");
    const b = buf[at.pos++]!;
    // Lengths and tags of a message under 2 GiB fit a double exactly.
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return result;
    shift += 7;
    if (shift > 49) throw new WireError("varint too long");
  }
}

/** Decodes a FlightData message; bytes fields are views of `buf`. Unknown fields are skipped. */
export function decodeFlightData(buf: Uint8Array): FlightData {
  const out: FlightData = { header: EMPTY, appMetadata: EMPTY, body: EMPTY };
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const tag = readVarint(buf, at);
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 2) {
      const len = readVarint(buf, at);
      if (at.pos + len > buf.length) throw new WireError("truncated field");
      const value = buf.subarray(at.pos, at.pos + len);
      at.pos += len;
      if (field === DESCRIPTOR) out.descriptor = FlightDescriptor.decode(value);
      else if (field === HEADER) out.header = value;
      else if (field === APP_METADATA) out.appMetadata = value;
      else if (field === BODY) out.body = value;
    } else if (wire === 0) readVarint(buf, at);
    else if (wire === 1) at.pos += 8;
    else if (wire === 5) at.pos += 4;
    else throw new WireError(`unsupported wire type ${wire}`);
  }
  if (at.pos > buf.length) throw new WireError("truncated field");
  return out;
}

/**
 * Encodes a FlightData message whose body is `body` laid end to end (the buffers of an IPC
 * message, padding included): one allocation, each byte copied once.
 */
export function encodeFlightData(msg: {
  header: Uint8Array;
  body?: readonly Uint8Array[];
  appMetadata?: Uint8Array;
}): Buffer {
  const body = msg.body ?? [];
  const bodyLength = body.reduce((n, b) => n + b.byteLength, 0);
  const fields: [number, number, readonly Uint8Array[]][] = [];
  if (msg.header.length > 0) fields.push([HEADER, msg.header.length, [msg.header]]);
  if (msg.appMetadata && msg.appMetadata.length > 0)
    fields.push([APP_METADATA, msg.appMetadata.length, [msg.appMetadata]]);
  if (bodyLength > 0) fields.push([BODY, bodyLength, body]);
  const size = fields.reduce(
    (n, [field, length]) => n + varintSize(field * 8 + 2) + varintSize(length) + length,
    0,
  );
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const [field, length, values] of fields) {
    pos = writeVarint(out, writeVarint(out, pos, field * 8 + 2), length);
    for (const v of values) {
      out.set(v, pos);
      pos += v.byteLength;
    }
  }
  return out;
}

export { WireError as FlightDataError };
