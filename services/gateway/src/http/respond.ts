import type { Response } from "express";
import { JsonObjectText, type ApiResponse } from "./handler.ts";
import type { CompiledOperation } from "../openapi/operations.ts";

/**
 * Writes a handler's result. On paginated operations the gateway owns `pagination`: a
 * non-empty `nextAfter` becomes `has_more: true` with a signed `next_cursor`; otherwise
 * `has_more: false` and no cursor (the spec omits it on the last page).
 */
export function respond(
  res: Response,
  op: CompiledOperation,
  out: ApiResponse,
  signNext: (after: string) => string,
): void {
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
  res.status(out.status);
  if (body === undefined || out.status === 204) res.end();
  else if (body instanceof JsonObjectText)
    res.type("application/json; charset=utf-8").send(body.text);
  else res.json(body);
}

/** The object text with one more member before its closing brace, the rest left as it is. */
export function withMember(object: JsonObjectText, name: string, value: unknown): JsonObjectText {
  const open = object.text.slice(0, -1);
  const empty = /^\{\s*$/.test(open);
  return new JsonObjectText(
    `${open}${empty ? "" : ","}${JSON.stringify(name)}:${JSON.stringify(value)}}`,
  );
}
