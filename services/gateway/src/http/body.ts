import { isUtf8 } from "node:buffer";
import express, { type Request, type Response } from "express";
import { DomainError } from "@argus/platform";

const JSON_TYPES = ["application/json", "application/*+json"];

const isEmpty = (req: Request): boolean =>
  req.headers["transfer-encoding"] === undefined &&
  Number(req.headers["content-length"] ?? 0) === 0;

const typed = (type: string, message: string) => Object.assign(new Error(message), { type });

/**
 * JSON is UTF-8 (RFC 8259 §8.1). Checked on the raw bytes before they are decoded, because the
 * decoder would otherwise turn every invalid sequence into U+FFFD and the caller's text would be
 * stored altered without a word.
 */
function verifyUtf8(_req: unknown, _res: unknown, buf: Buffer, encoding: string): void {
  if (encoding !== "utf-8") throw typed("charset.not.utf8", "the request body must be UTF-8");
  if (!isUtf8(buf)) throw typed("entity.not.utf8", "the request body is not valid UTF-8");
}

/** Reads a JSON request body of at most `limitBytes`; undefined when the request has none. */
export function createBodyReader(
  limitBytes: number,
): (req: Request, res: Response) => Promise<unknown> {
  // The media type is checked below, so the parser accepts whatever reaches it.
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: () => true,
    verify: verifyUtf8,
  });
  return async (req, res) => {
    if (isEmpty(req)) return undefined;
    if (!req.is(JSON_TYPES))
      throw new DomainError("unsupported-media-type", "the request body must be application/json");
    try {
      await new Promise<void>((resolve, reject) =>
        parse(req, res, (err?: unknown) => (err ? reject(err) : resolve())),
      );
    } catch (err) {
      const e = err as { status?: number; type?: string; message?: string };
      if (e.status === 413)
        throw new DomainError("payload-too-large", `the request body exceeds ${limitBytes} bytes`);
      if (e.status === 415 || e.type === "charset.not.utf8")
        throw new DomainError("unsupported-media-type", e.message ?? "unsupported body encoding");
      if (e.type === "entity.not.utf8")
        throw new DomainError("invalid-request", "the request body is not valid UTF-8");
      if (e.type === "entity.parse.failed")
        throw new DomainError("invalid-request", "the request body is not valid JSON");
      throw err;
    }
    return req.body as unknown;
  };
}
