import { ServerResponse } from "node:http";
import type { Express, Request, Response } from "express";
import { startedContext, type RequestContext } from "./requestContext.ts";
import { SECURITY_HEADERS } from "./securityHeaders.ts";

type WriteHead = (this: ServerResponse, ...args: unknown[]) => ServerResponse;
const nodeWriteHead = ServerResponse.prototype.writeHead as WriteHead;

const SECURITY_LIST = SECURITY_HEADERS.flat();

/**
 * The headers every answer carries, as a list (name, value, name, value, ...): its request id,
 * the security headers and, on an operation's answers (Problems too), `Cache-Control: no-store`
 * (answers are per caller and some carry a secret shown once).
 */
function everyAnswerHeaders(ctx: RequestContext | undefined): string[] {
  const list = ctx ? ["X-Request-Id", ctx.requestId, ...SECURITY_LIST] : [...SECURITY_LIST];
  if (ctx?.noStore) list.push("Cache-Control", "no-store");
  return list;
}

/**
 * Every answer gets `everyAnswerHeaders` as its head is written, so they are on Problems,
 * probes and the document without each route setting them, and a route's own value (the docs
 * page's policy) is kept. An operation's answer writes its head in one list
 * (`writeAnswerHead`): the same headers set one by one beforehand cost the gateway ~3 µs a
 * request (bench/README.md, S1).
 */
export function addHeadersToEveryAnswer(app: Express): void {
  const response = app.response as unknown as { writeHead: WriteHead };
  response.writeHead = function writeHead(this: ServerResponse, ...args: unknown[]) {
    const headers = everyAnswerHeaders(startedContext(this.req as Request));
    for (let i = 0; i < headers.length; i += 2)
      if (!this.hasHeader(headers[i]!)) this.setHeader(headers[i]!, headers[i + 1]!);
    return nodeWriteHead.apply(this, args);
  };
}

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
  const list = everyAnswerHeaders(ctx);
  for (const h of headers) list.push(h);
  nodeWriteHead.call(res, status, list);
}
