import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { gunzip, inflate, type InputType, type ZlibOptions } from "node:zlib";
import { DomainError } from "@argus/platform";

/** The Content-Encodings OTLP clients send; `x-gzip` is gzip's old name (RFC 9110 §8.4.1.3). */
const CODINGS = {
  identity: undefined,
  gzip: promisify<InputType, ZlibOptions, Buffer>(gunzip),
  "x-gzip": promisify<InputType, ZlibOptions, Buffer>(gunzip),
  deflate: promisify<InputType, ZlibOptions, Buffer>(inflate),
} as const;

export type ContentCoding = keyof typeof CODINGS;

/** A request's Content-Encoding (absent: identity); anything else is 415, as OTLP asks. */
export function contentCodingOf(header: string | undefined): ContentCoding {
  const coding = (header ?? "identity").trim().toLowerCase() || "identity";
  if (Object.hasOwn(CODINGS, coding)) return coding as ContentCoding;
  throw new DomainError(
    "unsupported-media-type",
    `Content-Encoding '${header ?? ""}' is not supported: use gzip, deflate or none`,
  );
}

const tooLarge = (limit: number, what: string) =>
  new DomainError("payload-too-large", `the ${what} request body exceeds ${limit} bytes`);

/**
 * The bytes on the wire, at most `limit`. Past it the request is left flowing with no reader
 * (Node drops what still arrives) rather than destroyed, so the client still reads the 413.
 */
function readWire(req: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      reject(tooLarge(limit, "compressed or plain"));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    const onClose = () => {
      stop();
      reject(new DomainError("invalid-request", "the request body ended early"));
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/**
 * The request body, decompressed, with both its wire size and its decompressed size bounded by
 * `limit`. zlib stops inflating as soon as the output passes `maxOutputLength`, so a small
 * body that would inflate to gigabytes (a zip bomb) costs at most `limit` bytes of memory.
 */
export async function readOtlpBody(
  req: Readable & { headers: Record<string, string | string[] | undefined> },
  coding: ContentCoding,
  limit: number,
): Promise<Buffer> {
  // A declared length past the limit is refused before a byte of it is read.
  if (Number(req.headers["content-length"] ?? 0) > limit) throw tooLarge(limit, "declared");
  const wire = await readWire(req, limit);
  const decompress = CODINGS[coding];
  if (!decompress) return wire;
  try {
    return await decompress(wire, { maxOutputLength: limit });
  } catch (err) {
    if ((err as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE")
      throw tooLarge(limit, "decompressed");
    throw new DomainError("invalid-request", `the request body is not valid ${coding} data`);
  }
}
