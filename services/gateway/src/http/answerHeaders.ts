import { ServerResponse } from "node:http";
import type { Express, Request, Response } from "express";
import { startedContext, type RequestContext } from "./requestContext.ts";
import { SECURITY_HEADERS } from "./securityHeaders.ts";

type WriteHead = (this: ServerResponse, ...args: unknown[]) => ServerResponse;
const nodeWriteHead = ServerResponse.prototype.writeHead as WriteHead;

const CACHE_CONTROL = ["Cache-Control", "no-store"] as const;

/**
 * The headers every answer carries: the security headers, its request id and, on an
 * operation's answers (Problems too), `Cache-Control: no-store` (answers are per caller and
 * some carry a secret shown once). Each answer gets them as its head is written, so they are
 * on Problems, probes and the document without each route setting them, and a route's own
 * value (the docs page's policy) is kept. An operation's answer writes its head in one list
 * (`writeAnswerHead`): the same headers set one by one beforehand cost the gateway ~3 µs a
 * request (bench/README.md, S1).
 */
export function addHeadersToEveryAnswer(app: Express): void {
  const response = app.response as unknown as { writeHead: WriteHead };
  response.writeHead = function writeHead(this: ServerResponse, ...args: unknown[]) {
    const ctx = startedContext(this.req as Request);
    const missing = (name: string) => !this.hasHeader(name);
    for (const [name, value] of SECURITY_HEADERS) if (missing(name)) this.setHeader(name, value);
    if (ctx) {
      this.setHeader("X-Request-Id", ctx.requestId);
      if (ctx.noStore && missing(CACHE_CONTROL[0])) this.setHeader(...CACHE_CONTROL);
    }
    return nodeWriteHead.apply(this, args);
  };
}

const SECURITY_LIST = SECURITY_HEADERS.flat();

/**
 * An operation's answer's head: `status`, every answer's headers, then `headers` (name, value,
 * name, value, ...). Headers a step set before (`Idempotent-Replayed`, a draining server's
 * `Connection: close`) are kept.
 */
export function writeAnswerHead(
  res: Response,
  ctx: RequestContext,
  status: number,
  headers: readonly string[],
): void {
  nodeWriteHead.call(res, status, [
    "X-Request-Id",
    ctx.requestId,
    ...SECURITY_LIST,
    ...CACHE_CONTROL,
    ...headers,
  ]);
}
