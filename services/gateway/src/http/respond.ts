import type { Response } from "express";
import { JsonObjectText, type ApiResponse } from "./handler.ts";
import type { CompiledOperation } from "../openapi/operations.ts";
import { writeAnswerHead } from "./answerHeaders.ts";
import type { RequestContext } from "./requestContext.ts";

/** An answer as it goes on the wire: status and the body's JSON text (none for 204). */
export interface Answer {
  status: number;
  body?: { contentType: string; text: string } | undefined;
}

/**
 * Straight onto Node's response, its head in one list (answerHeaders.ts): Express's `send`
 * would parse and re-format the content type, check conditional-request freshness (the API
 * sets no validators) and copy a long body into a Buffer before writing it, on every answer.
 */
export function send(res: Response, ctx: RequestContext, answer: Answer): void {
  const body = answer.body;
  if (body === undefined) {
    writeAnswerHead(res, ctx, answer.status, []);
    res.end();
    return;
  }
  writeAnswerHead(res, ctx, answer.status, [
    "Content-Type",
    body.contentType,
    "Content-Length",
    String(Buffer.byteLength(body.text)),
  ]);
  res.end(body.text);
}

/**
 * A handler's result as it will be sent. On paginated operations the gateway owns
 * `pagination`: a non-empty `nextAfter` becomes `has_more: true` with a signed `next_cursor`;
 * otherwise `has_more: false` and no cursor (the spec omits it on the last page).
 */
export function render(
  op: CompiledOperation,
  out: ApiResponse,
  signNext: (after: string) => string,
): Answer {
  let body = out.body;
  if (op.paginated && out.status < 300) {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new Error(`${op.operationId}: a paginated handler must return an object body`);
    }
    const pagination = out.nextAfter
      ? { has_more: true, next_cursor: signNext(out.nextAfter) }
      : { has_more: false };
    body =
      body instanceof JsonObjectText
        ? withMember(body, "pagination", pagination)
        : { ...body, pagination };
  }
  if (body === undefined || out.status === 204) return { status: out.status };
  return {
    status: out.status,
    body: {
      contentType: "application/json; charset=utf-8",
      text: body instanceof JsonObjectText ? body.text : JSON.stringify(body),
    },
  };
}

/** The object text with one more member before its closing brace, the rest left as it is. */
export function withMember(object: JsonObjectText, name: string, value: unknown): JsonObjectText {
  const open = object.text.slice(0, -1);
  const empty = /^\{\s*$/.test(open);
  return new JsonObjectText(
    `${open}${empty ? "" : ","}${JSON.stringify(name)}:${JSON.stringify(value)}}`,
  );
}
