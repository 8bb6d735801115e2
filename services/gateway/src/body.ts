import express, { type Request, type Response } from "express";
import { DomainError } from "@argus/platform";

const JSON_TYPES = ["application/json", "application/*+json"];

const isEmpty = (req: Request): boolean =>
  req.headers["transfer-encoding"] === undefined &&
  Number(req.headers["content-length"] ?? 0) === 0;

/** Reads a JSON request body of at most `limitBytes`; undefined when the request has none. */
export function createBodyReader(
  limitBytes: number,
): (req: Request, res: Response) => Promise<unknown> {
  // The media type is checked below, so the parser accepts whatever reaches it.
  const parse = express.json({ limit: limitBytes, strict: true, type: () => true });
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
      if (e.status === 415)
        throw new DomainError("unsupported-media-type", e.message ?? "unsupported body encoding");
      if (e.type === "entity.parse.failed")
        throw new DomainError("invalid-request", "the request body is not valid JSON");
      throw err;
    }
    return req.body as unknown;
  };
}
