import { Null, RecordBatchReader, Table, Utf8, tableToIPC, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { checkIpcStream } from "../src/flight/ipcGuard.ts";

/** A stream of one text column, its schema carrying one metadata entry, as spans.log sends. */
function stream(): Uint8Array {
  const t = new Table({ "context.span_id": vectorFromArray(["aaaaaaaaaaaaaaaa"], new Utf8()) });
  t.schema.metadata.set("arize-schema", "x");
  return tableToIPC(t, "stream");
}

/**
 * Where a vector's length lies in the stream: message `n` (0: the schema, 1: the batch), the
 * vector in vtable slot `vt` of the message's header (the Schema or RecordBatch table).
 * Flatbuffer offsets read by hand, so the test says where the bytes are.
 */
function vectorLengthAt(bytes: Uint8Array, n: number, vt: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (let i = 0; ; i++) {
    const length = view.getInt32(at + 4, true);
    const header = at + 8;
    const u32 = (p: number) => view.getUint32(p, true);
    /** Where a table's field is; undefined when the table has none there. */
    const field = (table: number, slot: number) => {
      const vtable = table - view.getInt32(table, true);
      const o = slot < view.getUint16(vtable, true) ? view.getUint16(vtable + slot, true) : 0;
      return o === 0 ? undefined : table + o;
    };
    const message = header + u32(header);
    if (i === n) {
      const headerRef = field(message, 8)!;
      const table = headerRef + u32(headerRef);
      const ref = field(table, vt)!;
      return ref + u32(ref);
    }
    const bodyAt = field(message, 10);
    at = header + length + (bodyAt === undefined ? 0 : Number(view.getBigInt64(bodyAt, true)));
  }
}

/** The batch's row count (RecordBatch slot 4) and its column's FieldNode (length, null_count). */
function rowCountsAt(bytes: Uint8Array): { batch: number; node: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nodes = vectorLengthAt(bytes, 1, 6);
  // The RecordBatch table's own length field: found from its vtable like the vectors above.
  const schemaEnd = 8 + view.getInt32(4, true);
  const header = schemaEnd + 8;
  const message = header + view.getUint32(header, true);
  const slot = (table: number, vt: number) =>
    table + view.getUint16(table - view.getInt32(table, true) + vt, true);
  const headerRef = slot(message, 8);
  const batch = headerRef + view.getUint32(headerRef, true);
  return { batch: slot(batch, 4), node: nodes + 4 };
}

const overwritten = (at: number, value: number): Uint8Array => {
  const bytes = stream().slice();
  new DataView(bytes.buffer).setUint32(at, value, true);
  return bytes;
};

const refusal = (bytes: Uint8Array): DomainError => {
  try {
    checkIpcStream(bytes);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error("not refused");
};

describe("Arrow IPC headers checked before apache-arrow decodes them", () => {
  it("a stream as apache-arrow (and pyarrow) writes it passes, and reads as written", () => {
    const bytes = stream();
    expect(() => checkIpcStream(bytes)).not.toThrow();
    const reader = RecordBatchReader.from(bytes).open();
    expect(reader.schema.metadata.get("arize-schema")).toBe("x");
    // The hand-read offsets below name the vectors they say: counts of 1 each.
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(vectorLengthAt(bytes, 0, 8), true)).toBe(1);
    expect(view.getUint32(vectorLengthAt(bytes, 0, 6), true)).toBe(1);
    expect(view.getUint32(vectorLengthAt(bytes, 1, 6), true)).toBe(1);
  });

  // The fuzz step's find: one count overwritten made apache-arrow loop ~2^31 times, holding the
  // gateway's event loop. Each count the decoder loops over is bounded by the header's bytes.
  it.each([
    ["the schema's custom_metadata", 0, 8],
    ["the schema's fields", 0, 6],
    ["the record batch's nodes", 1, 6],
    ["the record batch's buffers", 1, 8],
  ])("%s count past the header is a 400, not a loop", (_, n, vt) => {
    const bytes = stream();
    const at = vectorLengthAt(bytes, n, vt);
    const err = refusal(overwritten(at, 0x7fffffff));
    expect(err.type).toBe("invalid-request");
    expect(err.message).toBe("not Arrow IPC: a message header points outside itself");
  });

  it("a field's children or metadata counts are bounded alike, at every depth", () => {
    // Every 4-byte word of the schema's header set to 2^31 - 1: each is refused or is no count
    // the decoder loops over (apache-arrow then reads or refuses it as before, without looping).
    const bytes = stream();
    const schemaEnd = 8 + new DataView(bytes.buffer).getInt32(4, true);
    let refused = 0;
    for (let at = 8; at + 4 <= schemaEnd; at += 4) {
      const mutated = overwritten(at, 0x7fffffff);
      try {
        checkIpcStream(mutated);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        refused++;
        continue;
      }
      try {
        Array.from(RecordBatchReader.from(mutated).open() as Iterable<unknown>);
      } catch {
        // refused by apache-arrow itself: as before
      }
    }
    expect(refused).toBeGreaterThan(3);
  });

  // A forged row count decoded as it claims: a reader's row loop then ran ~1 minute a batch.
  it.each([
    ["the batch's row count", "batch", 0],
    ["its column's length", "node", 0],
    ["its column's null count", "node", 8],
  ] as const)("%s past what the body holds is a 400", (_, field, plus) => {
    const bytes = stream().slice();
    const view = new DataView(bytes.buffer);
    const at = rowCountsAt(bytes)[field] + plus;
    expect(view.getBigInt64(at, true)).toBe(plus === 0 ? 1n : 0n);
    view.setBigInt64(at, 1n << 31n, true);
    const err = refusal(bytes);
    expect(err.type).toBe("invalid-request");
    expect(err.message).toMatch(/claims (2147483648 rows|more nulls than rows)/);
    view.setBigInt64(at, -1n, true);
    expect(refusal(bytes).type).toBe("invalid-request");
  });

  it("a batch of all-null columns, which has no body, passes up to 2^20 rows", () => {
    const nulls = (rows: number) =>
      tableToIPC(
        new Table({ empty: vectorFromArray(new Array(rows).fill(null), new Null()) }),
        "stream",
      );
    const most = nulls(1 << 20);
    expect(() => checkIpcStream(most)).not.toThrow();
    expect(RecordBatchReader.from(most).open().next().value?.numRows).toBe(1 << 20);
    expect(refusal(nulls((1 << 20) + 1)).message).toMatch(
      /claims 1048577 rows, more than its 0 bytes/,
    );
  });
});
