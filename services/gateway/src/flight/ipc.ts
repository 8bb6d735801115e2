import {
  type AsyncRecordBatchStreamReader,
  Message,
  RecordBatchReader,
  type RecordBatch,
  type Schema,
  type TypeMap,
} from "apache-arrow";
import * as ipcMetadata from "apache-arrow/ipc/metadata/message";
import { VectorAssembler } from "apache-arrow/visitor/vectorassembler";
import { DomainError } from "@argus/platform";
import type { FlightData } from "./flightData.ts";
import { checkIpcMessage } from "./ipcGuard.ts";

/**
 * Arrow IPC over Flight. A FlightData message is one IPC message cut in two: its flatbuffer
 * header and its body. The stream framing (continuation marker, padded header length) is put
 * back around each, so apache-arrow's own stream reader decodes them one message at a time;
 * the way out builds each message's header and body directly.
 */

const CONTINUATION = -1;

function framed(header: Uint8Array): Uint8Array {
  const padded = (header.length + 7) & ~7;
  const prefix = new Uint8Array(8 + padded);
  const view = new DataView(prefix.buffer);
  view.setInt32(0, CONTINUATION, true);
  view.setInt32(4, padded, true);
  prefix.set(header, 8);
  return prefix;
}

async function* ipcStream(messages: AsyncIterable<FlightData>): AsyncGenerator<Uint8Array> {
  for await (const m of messages) {
    // A message may carry application metadata alone.
    if (m.header.length === 0) continue;
    // Before apache-arrow decodes it: a forged count in a header would hold the event loop.
    checkIpcMessage(m.header, m.body.length);
    yield framed(m.header);
    if (m.body.length > 0) yield m.body;
  }
}

const notArrow = (err: unknown) =>
  new DomainError(
    "invalid-request",
    `the stream is not Arrow IPC record batches: ${err instanceof Error ? err.message : String(err)}`,
  );

/**
 * The schema and record batches of a DoPut's messages (the first, with the descriptor,
 * included), decoded as they arrive: each batch is a view of its gRPC message.
 */
export async function readRecordBatches(
  messages: AsyncIterable<FlightData>,
): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch> }> {
  let reader: AsyncRecordBatchStreamReader<TypeMap>;
  try {
    reader = await RecordBatchReader.from<TypeMap>(ipcStream(messages));
    await reader.open();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw notArrow(err);
  }
  if (!reader.schema) throw new DomainError("invalid-request", "the stream has no Arrow schema");
  const batches = async function* () {
    const it = reader[Symbol.asyncIterator]() as AsyncIterator<RecordBatch>;
    for (;;) {
      let next: IteratorResult<RecordBatch>;
      try {
        next = await it.next();
      } catch (err) {
        if (err instanceof DomainError) throw err;
        throw notArrow(err);
      }
      if (next.done) return;
      yield next.value;
    }
  };
  return { schema: reader.schema, batches: batches() };
}

/** An IPC message as FlightData parts: the header flatbuffer and its body's buffers. */
export interface IpcFrame {
  header: Uint8Array;
  body: Uint8Array[];
}

/** The first message of a DoGet: the stream's schema. */
export function schemaFrame(schema: Schema): IpcFrame {
  return { header: Message.encode(Message.from(schema)), body: [] };
}

const PADDING = new Uint8Array(8);

/** One record batch (no dictionaries, no compression: the columns a download sends). */
export function recordBatchFrame(batch: RecordBatch): IpcFrame {
  const { byteLength, nodes, bufferRegions, buffers, variadicBufferCounts } =
    VectorAssembler.assemble(batch);
  const header = new ipcMetadata.RecordBatch(
    batch.numRows,
    nodes,
    bufferRegions,
    null,
    variadicBufferCounts,
  );
  const body: Uint8Array[] = [];
  for (const view of buffers) {
    if (view.byteLength === 0) continue;
    const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    body.push(b);
    const pad = ((b.byteLength + 7) & ~7) - b.byteLength;
    if (pad > 0) body.push(PADDING.subarray(0, pad));
  }
  return { header: Message.encode(Message.from(header, byteLength)), body };
}
