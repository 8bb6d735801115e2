import type { Logger } from "@argus/platform";
import type { Caller } from "../backend.ts";

/** One keyset page: `after` comes from a verified cursor and is "" on the first page. */
export interface PageRequest {
  limit: number;
  after: string;
}

/** A request that has passed authentication, rate limiting, validation and cursor checks. */
export interface ApiRequest extends Caller {
  /** The JSON body, valid against the operation's schema; undefined when the operation has none. */
  body: unknown;
  /** Validated query with defaults applied and types coerced; `limit` and `cursor` live in `page`. */
  query: Record<string, unknown>;
  /** Validated path parameters. */
  params: Record<string, string>;
  /** On paginated operations (those with a `cursor` parameter); `{ limit: 0, after: "" }` elsewhere. */
  page: PageRequest;
  /** Bound to this request's id. */
  logger: Logger;
}

/**
 * A JSON object the handler already wrote as text (e.g. 500 large dataset examples joined from
 * the service's JSON text): sent as it is, never parsed or serialized again. The text must be
 * one JSON object (`{...}`); the gateway may add `pagination` before its closing brace.
 */
export class JsonObjectText {
  readonly text: string;
  constructor(text: string) {
    if (!text.startsWith("{") || !text.endsWith("}"))
      throw new Error("JsonObjectText must hold a JSON object");
    this.text = text;
  }
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * `head` (the opening brace and the gateway's own members, e.g. `{"id":"…"`) followed by the
 * members of `fieldsJson`, an object's JSON text as a service wrote it: the user's fields are
 * neither parsed nor serialized again, so a page of 500 large examples costs a few joins.
 */
export function withFieldsText(head: string, fieldsJson: string, what: string): string {
  let i = 0;
  while (i < fieldsJson.length && isSpace(fieldsJson.charCodeAt(i))) i++;
  if (i === fieldsJson.length) return `${head}}`; // no fields at all
  if (fieldsJson[i] !== "{") throw new Error(`${what} has fields that are not an object`);
  i++;
  while (i < fieldsJson.length && isSpace(fieldsJson.charCodeAt(i))) i++;
  if (fieldsJson[i] === "}") return `${head}}`;
  return `${head},${fieldsJson.slice(i)}`;
}

export interface ApiResponse {
  status: number;
  /** JSON body (a value to serialize, or JsonObjectText already serialized); omit for 204. */
  body?: unknown;
  /**
   * Paginated operations only: the service's position after the last item when another page
   * exists; "" or absent on the last page. The gateway adds `pagination` to the body itself.
   */
  nextAfter?: string;
}

export type Handler = (req: ApiRequest) => Promise<ApiResponse>;
