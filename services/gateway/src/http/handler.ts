import type { Logger } from "@argus/platform";
import type { Caller } from "../backend.ts";
import { isSpace } from "./bodyText.ts";
import type { operations, queryDefaults, resources } from "../generated/openapi.ts";

/** The operations of the OpenAPI document, by `operationId`. */
export type OperationId = keyof operations;
/** The document's resources, `openapi/paths/<resource>.yaml`: each served by `routes/<resource>.ts`. */
type Resource = keyof resources;

/** One keyset page: `after` comes from a verified cursor and is "" on the first page. */
export interface PageRequest {
  limit: number;
  after: string;
}

type Flat<T> = { [K in keyof T]: T[K] };
/** A part of the request the operation declares nothing in: validated to be empty. */
type Nothing = Record<never, never>;
type Declared<T> = [Exclude<T, undefined>] extends [never] ? Nothing : Exclude<T, undefined>;
type ParametersOf<Op extends OperationId> = operations[Op]["parameters"];

/** Query parameters with a default are always there: validation fills them in. */
type Defaulted<Op extends OperationId, Q> = Op extends keyof queryDefaults
  ? Omit<Q, queryDefaults[Op]> & Required<Pick<Q, queryDefaults[Op] & keyof Q>>
  : Q;

/**
 * The validated query of an operation, its types coerced and defaults filled in. A paginated
 * operation (one with a `cursor` parameter) has `limit` and `cursor` in `page` instead.
 */
export type Query<Op extends OperationId> =
  Declared<ParametersOf<Op>["query"]> extends infer Q
    ? Flat<"cursor" extends keyof Q ? Omit<Defaulted<Op, Q>, "limit" | "cursor"> : Defaulted<Op, Q>>
    : never;

/** The validated path parameters of an operation. */
export type PathParams<Op extends OperationId> = Declared<ParametersOf<Op>["path"]>;

type RequestBody<Op extends OperationId> = operations[Op]["requestBody"];
type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;

/**
 * The JSON body of an operation as sent, valid against its schema (no defaults filled in:
 * a field the client left out is absent); undefined when the operation takes none or the
 * client sent none where the body is optional.
 */
export type Body<Op extends OperationId> = [Exclude<RequestBody<Op>, undefined>] extends [never]
  ? undefined
  : Json<RequestBody<Op>> | (undefined extends RequestBody<Op> ? undefined : never);

type KeyOfAny<U> = U extends unknown ? keyof U : never;
type ValueIn<U, K extends PropertyKey> = U extends unknown
  ? K extends keyof U
    ? U[K]
    : undefined
  : never;
/** The keys of `All` some member of U may lack. */
type LooseKeys<U, All extends PropertyKey> = U extends unknown
  ? { [K in All]: K extends keyof U ? (object extends Pick<U, K> ? K : never) : K }[All]
  : never;

/**
 * One object with the fields of every member of a union of schemas (`oneOf`, `if`/`then`/
 * `else`), required where every member requires them: for code that reads the body's fields
 * whichever schema it matched. Sound for schemas that admit no other properties
 * (`additionalProperties: false`): a field of one member is then absent on the others.
 */
export type AnyOf<U> = Flat<
  { [K in Exclude<KeyOfAny<U>, LooseKeys<U, KeyOfAny<U>>>]: ValueIn<U, K> } & {
    [K in LooseKeys<U, KeyOfAny<U>>]?: ValueIn<U, K>;
  }
>;

/** A request to one operation that passed authentication, rate limiting, validation and cursor checks. */
export interface ApiRequest<Op extends OperationId> extends Caller {
  body: Body<Op>;
  query: Query<Op>;
  params: PathParams<Op>;
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

/** The handler of one operation: its request is typed by the operation's part of the document. */
export type Handler<Op extends OperationId> = (req: ApiRequest<Op>) => Promise<ApiResponse>;

/** One handler per operation of the document, no more, no less. */
export type Handlers = { [Op in OperationId]: Handler<Op> };

/** The handlers of one resource (or a few): what a route file exports. */
export type ResourceHandlers<R extends Resource> = { [Op in resources[R]]: Handler<Op> };

/**
 * A request as the pipeline builds it for an operation known only at run time. Validation
 * against that operation's schemas (openapi/operations.ts) is what makes it the operation's
 * ApiRequest: `handlerOf` is the one place where the generated types meet that check.
 */
export interface ValidatedRequest extends Caller {
  body: unknown;
  query: Record<string, unknown>;
  params: Record<string, unknown>;
  page: PageRequest;
  logger: Logger;
}

export type ValidatedHandler = (req: ValidatedRequest) => Promise<ApiResponse>;

/** The handler of operation `id`, as the pipeline calls it; undefined when there is none. */
export const handlerOf = (handlers: Handlers, id: string): ValidatedHandler | undefined =>
  Object.hasOwn(handlers, id)
    ? (handlers[id as OperationId] as unknown as ValidatedHandler)
    : undefined;

/** An operation that answers nothing (a delete): 204 once the service has done it. */
export async function noContent(done: Promise<unknown>): Promise<ApiResponse> {
  await done;
  return { status: 204 };
}
