import { LIMITS, type ImportedColumn } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import { invalid, unprocessable } from "../shared/problemRules.ts";
import type { Pool } from "pg";
import { beginImport, idSequence, type ImportKind } from "./staging.ts";

/**
 * What every bulk upload shares: its messages in order (a start, rows, an end that counts them),
 * the limits on its rows, and staging them as they come.
 */

/** The parts of an upload stream, as the generated oneofs spell them. */
export type ImportPart<Start, Rows> =
  | { $case: "start"; value: Start }
  | { $case: "rows"; value: Rows }
  | { $case: "end"; value: { rowCount: bigint } };

/** An upload's messages, read one at a time, with the start and rows types of its oneof. */
type Upload<M extends { part?: { $case: string; value: unknown } | undefined }> = AsyncIterator<{
  part?: ImportPart<
    Extract<M["part"], { $case: "start" }>["value"],
    Extract<M["part"], { $case: "rows" }>["value"]
  >;
}>;

/** An upload's request stream as `startOf` and `stageUpload` read it. */
export const uploadOf = <M extends { part?: { $case: string; value: unknown } | undefined }>(
  requests: AsyncIterable<M>,
) => requests[Symbol.asyncIterator]() as unknown as Upload<M>;

/** The start message; anything else first is a broken stream. */
export async function startOf<Start, Rows>(
  messages: AsyncIterator<{ part?: ImportPart<Start, Rows> | undefined }>,
): Promise<Start> {
  const first = await messages.next();
  if (first.done || first.value.part?.$case !== "start")
    throw invalid("an upload begins with its start message");
  return first.value.part.value;
}

/**
 * The rows after the start, each handed to `take` (which stages it), until the end message: a
 * stream that ends without one, or whose end counts other rows than were sent, is refused, so
 * only a whole upload ever commits. Returns the number of rows.
 */
export async function takeRows<Start, Rows>(
  messages: AsyncIterator<{ part?: ImportPart<Start, Rows> | undefined }>,
  take: (rows: Rows, first: number) => Promise<number>,
  max: number,
): Promise<number> {
  let count = 0;
  for (;;) {
    const next = await messages.next();
    if (next.done) throw invalid("the upload ended without its end message");
    const part = next.value.part;
    if (part?.$case === "rows") {
      count += await take(part.value, count);
      if (count > max)
        throw new DomainError(
          "payload-too-large",
          `an upload holds at most ${max} rows; this one sent more`,
        );
      continue;
    }
    if (part?.$case !== "end") throw invalid("an upload sends its start once, then rows");
    if (part.value.rowCount !== BigInt(count))
      throw invalid(`the upload's end counts ${part.value.rowCount} rows, but ${count} arrived`);
    if (count === 0) throw unprocessable("an upload holds at least one row");
    return count;
  }
}

/** One row's fields must fit the example limit and hold at least one value. */
export function requireRowFields(fieldsJson: string, row: number, extraBytes = 0): void {
  if (fieldsJson === "{}" || fieldsJson === "")
    throw unprocessable(`row ${row} has no field with a value`);
  // UTF-16 length bounds UTF-8 length within 3x: count exactly only when it could matter.
  if ((fieldsJson.length + extraBytes) * 3 > LIMITS.EXAMPLE_MAX_BYTES) {
    const bytes = Buffer.byteLength(fieldsJson) + extraBytes;
    if (bytes > LIMITS.EXAMPLE_MAX_BYTES)
      throw new DomainError(
        "payload-too-large",
        `row ${row} is ${bytes} bytes; one row holds at most ${LIMITS.EXAMPLE_MAX_BYTES}`,
      );
  }
}

/** Column names of an upload's fields, each once. */
export function columnNames(columns: readonly ImportedColumn[]): string[] {
  const names = columns.map((c) => c.name);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw invalid(`column ${JSON.stringify(name)} appears twice`);
    seen.add(name);
  }
  return names;
}

/**
 * The rest of an upload after its start: its rows staged as they arrive (`rowTexts` checks a
 * message's rows, the first numbered `first`, and yields each one's JSON text, with new ids from
 * `nextId`), at most `max`, then `commit` with the import and the row count. On any failure (the
 * client gone included) the staging is dropped before the error goes on, so a failed upload
 * leaves nothing behind but an error.
 */
export async function stageUpload<Start, Rows, T>(
  messages: AsyncIterator<{ part?: ImportPart<Start, Rows> | undefined }>,
  upload: { pool: Pool; kind: ImportKind; accountId: string; now: Date; max: number },
  rowTexts: (rows: Rows, first: number, nextId: () => string) => Iterable<string>,
  commit: (importId: string, count: number) => Promise<T>,
): Promise<T> {
  const staging = await beginImport(upload.pool, upload.kind, upload.accountId);
  try {
    const nextId = idSequence(upload.now);
    const count = await takeRows(
      messages,
      async (rows, first) => {
        let n = 0;
        for (const text of rowTexts(rows, first, nextId)) {
          await staging.add(text);
          n++;
        }
        return n;
      },
      upload.max,
    );
    await staging.flush();
    return await commit(staging.importId, count);
  } catch (err) {
    await staging.drop();
    throw err;
  }
}
