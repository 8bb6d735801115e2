import { isUtf8 } from "node:buffer";
import { DomainError } from "@argus/platform";
import { bodyTextOf } from "./bodyText.ts";

/**
 * The one rule for text the store cannot hold. Postgres refuses U+0000 in `text` and `jsonb`,
 * and a lone surrogate has no UTF-8 form, so the driver would store U+FFFD in its place: the
 * first is a 500 waiting to happen, the second silently alters what the caller sent. Both are
 * refused at the edge with a 400 naming where they were, before anything is read or written.
 */
export function unstorableReason(text: string): string | null {
  if (text.includes("\0")) return "contains U+0000";
  if (!text.isWellFormed()) return "contains an unpaired surrogate";
  return null;
}

const refuse = (where: string, reason: string): DomainError =>
  new DomainError("invalid-request", `${where} ${reason}, which cannot be stored`);

/** `messages[0].content`-style path of a JSON value, as describeSchemaError names body fields. */
const child = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** A value of the body, with the way to it: its key and its parent's step. */
interface Step {
  value: unknown;
  key: string | number | null;
  up: Step | null;
}

/** The path of a step, built only for a refusal (a bulk body holds thousands of values). */
function pathOf(step: Step): string {
  const keys: (string | number)[] = [];
  for (let s: Step | null = step; s !== null && s.key !== null; s = s.up) keys.push(s.key);
  return keys.reduceRight<string>((path, key) => child(path, key), "");
}

/**
 * Every key and string value of a parsed JSON body, at any depth (user-defined fields
 * included), refused with the path of the first that is not storable. Iterative: a body may
 * nest deeper than the call stack goes.
 */
function checkJson(body: unknown): void {
  const stack: Step[] = [{ value: body, key: null, up: null }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const value = step.value;
    if (typeof value === "string") {
      const reason = unstorableReason(value);
      if (reason) {
        const path = pathOf(step);
        throw refuse(path ? `'${path}'` : "the request body", reason);
      }
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, key: i, up: step }));
    } else if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        const reason = unstorableReason(k);
        if (reason) throw refuse(`a field name in '${pathOf(step) || "the request body"}'`, reason);
        stack.push({ value: v, key: k, up: step });
      }
    }
  }
}

/** Percent-decodes one query component strictly: null unless its bytes are UTF-8. */
function decodeComponent(raw: string): string | null {
  const bytes: number[] = [];
  const s = raw.replace(/\+/g, " ");
  for (let i = 0; i < s.length; i++) {
    const hex = s[i] === "%" ? s.slice(i + 1, i + 3) : "";
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      // Node's parser admits only ASCII in a request target; anything else is refused above us.
      bytes.push(s.charCodeAt(i) & 0xff);
    }
  }
  const buf = Buffer.from(bytes);
  return isUtf8(buf) ? buf.toString("utf8") : null;
}

type Query = Record<string, string | string[]>;

/**
 * The query string as Express's "simple" parser reads it (a repeated name becomes an array),
 * except that bytes which are not UTF-8 are refused instead of becoming U+FFFD.
 */
function parseQuery(rawUrl: string): Query {
  const at = rawUrl.indexOf("?");
  // No prototype: a parameter named `__proto__` is a name like any other.
  const query = Object.create(null) as Query;
  if (at < 0) return query;
  for (const pair of rawUrl.slice(at + 1).split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodeComponent(rawName);
    if (name === null) throw refuse(`query parameter name '${rawName}'`, "is not UTF-8");
    const value = decodeComponent(eq < 0 ? "" : pair.slice(eq + 1));
    if (value === null) throw refuse(`query parameter '${name}'`, "is not UTF-8");
    const before = query[name];
    query[name] = before === undefined ? value : [...[before].flat(), value];
  }
  return query;
}

/** The request's text as the operation reads it, every piece of it storable. */
export interface RequestText {
  params: Record<string, string>;
  query: Query;
  body: unknown;
}

/**
 * Every piece of request text an operation reads, checked by the one rule above: the query
 * (decoded here, strictly), path parameters, the `headers` the gateway passes on (by lower-case
 * name), the parsed body. Called once per request, by the pipeline, before authentication.
 */
export function storableRequest(
  req: { originalUrl: string; params: Record<string, unknown> },
  headers: Record<string, string | undefined>,
  body: unknown,
): RequestText {
  // Loops over the pieces rather than entries and copies: this runs on every request, most
  // with no query, one path parameter and no body.
  const query = parseQuery(req.originalUrl);
  for (const name in query) {
    const reason = unstorableReason(name);
    if (reason) throw refuse("a query parameter name", reason);
    const value = query[name]!;
    for (const v of typeof value === "string" ? [value] : value) {
      const r = unstorableReason(v);
      if (r) throw refuse(`query parameter '${name}'`, r);
    }
  }
  // Express percent-decodes path parameters; bytes that are not UTF-8 never get this far: its
  // router refuses them first (a 400 naming the raw value, problem.ts).
  const params: Record<string, string> = {};
  for (const name in req.params) {
    const value = String(req.params[name]);
    const reason = unstorableReason(value);
    if (reason) throw refuse(`path parameter '${name}'`, reason);
    params[name] = value;
  }
  for (const name in headers) {
    const value = headers[name];
    const reason = value === undefined ? null : unstorableReason(value);
    if (reason) throw refuse(`header '${name}'`, reason);
  }
  // A body parsed from its text (UTF-8, so no lone surrogate; JSON, so no raw U+0000) holds
  // neither but through a `\u` escape: without one there is nothing to walk (a bulk write's
  // thousands of values).
  if (body !== undefined) {
    const text = bodyTextOf(body);
    if (text === undefined || text.includes("\\u")) checkJson(body);
  }
  return { params, query, body };
}
