/**
 * A parsed request body's text, kept beside it, so that a handler can hand on a member as the
 * caller wrote it when that text is exactly what `JSON.stringify` would write for it: a bulk
 * write's 8 MiB of examples is then not serialized a second time (~20 ms of the gateway's
 * ~70 ms per 8 MiB create). Whatever else the caller wrote (spaces, `1.0`, `\u00e9`, a key twice)
 * is serialized as before, so what is passed on never depends on how the body was spelled.
 */
const texts = new WeakMap<object, string>();

export function rememberBodyText(body: object, text: string): void {
  if (typeof body === "object" && body !== null) texts.set(body, text);
}

/** The text `body` was parsed from, when the body reader kept it. */
export const bodyTextOf = (body: unknown): string | undefined =>
  typeof body === "object" && body !== null ? texts.get(body) : undefined;

/** JSON's whitespace (RFC 8259 §2). */
export const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Finds backslashes ahead of a position, each part of the text searched once. */
class Backslashes {
  private next = -1;
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  /** The first backslash at or after `from`; Infinity when there is none. */
  at(from: number): number {
    if (this.next !== Infinity && this.next < from) {
      const found = this.text.indexOf("\\", from);
      this.next = found < 0 ? Infinity : found;
    }
    return this.next;
  }
}

/** `\uXXXX` escapes JSON.stringify writes: controls without a short form, lower-case hex. */
const STRINGIFY_UNICODE_ESCAPE = /^00(?:0[0-7bef]|1[0-9a-f])$/;
const SHORT_ESCAPES = new Set(['"', "\\", "b", "f", "n", "r", "t"]);

/**
 * The end of the string literal opening at `at` (past its closing quote), in valid JSON text.
 * With `canonical`, -1 when an escape in it is not the one JSON.stringify writes. Nothing else
 * can differ: JSON.parse refuses raw control characters, and UTF-8 text holds no lone
 * surrogate, so every other character is one JSON.stringify writes as it is.
 */
function stringEnd(text: string, at: number, slashes: Backslashes, canonical: boolean): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    const slash = slashes.at(from);
    if (slash > quote) return quote + 1;
    const e = text[slash + 1]!;
    if (e === "u") {
      if (canonical && !STRINGIFY_UNICODE_ESCAPE.test(text.slice(slash + 2, slash + 6))) return -1;
      from = slash + 6;
    } else {
      if (canonical && !SHORT_ESCAPES.has(e)) return -1;
      from = slash + 2;
    }
  }
}

/** Number and literal characters: a token runs while they do. */
const isTokenChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) ||
  c === 0x2d ||
  c === 0x2b ||
  c === 0x2e ||
  (c >= 0x61 && c <= 0x7a) ||
  c === 0x45;

function tokenEnd(text: string, at: number): number {
  let i = at;
  while (i < text.length && isTokenChar(text.charCodeAt(i))) i++;
  return i;
}

/** A key JavaScript orders before the others, ascending: an array index, below 2^32 - 1. */
const INDEX_KEY = /^(?:0|[1-9][0-9]{0,9})$/;
const MAX_INDEX = 2 ** 32 - 1;

/**
 * The end of the JSON value at `at` when its text is exactly `JSON.stringify(JSON.parse(it))`,
 * else -1. `text` is valid JSON (JSON.parse read it). Refused: any space between tokens, an
 * escape or number spelled otherwise (`\/`, `1.0`, `1E2`, `-0`), a key twice, keys in an order
 * JavaScript does not keep (it moves array indices first). Iterative: a body may nest deeper
 * than the call stack goes.
 */
export function canonicalValueEnd(
  text: string,
  at: number,
  slashes = new Backslashes(text),
): number {
  /** Per open container: its keys so far (an object), or null (an array). */
  const open: (Keys | null)[] = [];
  let i = at;
  for (;;) {
    // A value starts at i.
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i + 1) === close) {
        i += 2;
      } else {
        open.push(c === 0x7b ? { names: new Set(), lastIndex: -1, named: false } : null);
        i += 1;
        if (c === 0x7b && (i = key(text, i, open[open.length - 1]!, slashes)) < 0) return -1;
        continue;
      }
    } else if (c === 0x22 /* " */) {
      if ((i = stringEnd(text, i, slashes, true)) < 0) return -1;
    } else {
      const end = tokenEnd(text, i);
      if (end === i) return -1; // a space
      const token = text.slice(i, end);
      if (c !== 0x74 && c !== 0x66 && c !== 0x6e && String(Number(token)) !== token) return -1;
      i = end;
    }
    // A value ended at i: close what it completes, then on to the next one.
    for (;;) {
      if (open.length === 0) return i;
      const d = text.charCodeAt(i);
      const keys = open[open.length - 1]!;
      if (d === 0x2c /* , */) {
        i += 1;
        if (keys !== null && (i = key(text, i, keys, slashes)) < 0) return -1;
        break;
      }
      if (d !== (keys === null ? 0x5d : 0x7d)) return -1;
      open.pop();
      i += 1;
    }
  }
}

/** An open object's keys so far, for the order JavaScript gives them (array indices first). */
interface Keys {
  names: Set<string>;
  lastIndex: number;
  named: boolean;
}

/**
 * Reads a key and its colon at `at` into `keys`; the value's start, or -1 when the key is there
 * twice or JavaScript would not keep it in the text's order (an array index after a name, or
 * after a larger index).
 */
function key(text: string, at: number, keys: Keys, slashes: Backslashes): number {
  if (text.charCodeAt(at) !== 0x22) return -1;
  const end = stringEnd(text, at, slashes, true);
  if (end < 0 || text.charCodeAt(end) !== 0x3a /* : */) return -1;
  // Escapes are canonical, so two spellings of one key are one text.
  const name = text.slice(at + 1, end - 1);
  if (keys.names.has(name)) return -1;
  keys.names.add(name);
  const index = INDEX_KEY.test(name) ? Number(name) : -1;
  if (index >= 0 && index < MAX_INDEX) {
    if (keys.named || index < keys.lastIndex) return -1;
    keys.lastIndex = index;
  } else {
    keys.named = true;
  }
  return end + 1;
}

/** The end of any JSON value at `at` in valid JSON text, spaces and all. */
function valueEnd(text: string, at: number, slashes: Backslashes): number {
  let depth = 0;
  let i = at;
  do {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i, slashes, false);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (!isSpace(c) && c !== 0x2c && c !== 0x3a) {
      i = Math.max(tokenEnd(text, i), i + 1);
      continue;
    }
    i++;
  } while (depth > 0);
  return i;
}

const skipSpaces = (text: string, at: number): number => {
  let i = at;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
};

/**
 * The text of each element of the body's top-level array member `name`, where it is exactly
 * what JSON.stringify writes for that element, else undefined at its place; null when the
 * body's text is not known or the member is not an array. The elements are the ones the parsed
 * body holds: with `name` twice, the last, as JSON.parse takes it.
 */
export function memberElementTexts(body: unknown, name: string): (string | undefined)[] | null {
  const text = bodyTextOf(body);
  if (text === undefined) return null;
  const parsed = (body as Record<string, unknown>)[name];
  if (!Array.isArray(parsed)) return null;
  const slashes = new Backslashes(text);
  let found: (string | undefined)[] | null = null;
  let i = skipSpaces(text, 0);
  if (text[i] !== "{") return null;
  i = skipSpaces(text, i + 1);
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i, slashes, false);
    const raw = text.slice(i, keyEnd);
    const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    i = skipSpaces(text, skipSpaces(text, keyEnd) + 1); // past the colon
    if (key === name && text[i] === "[") {
      found = [];
      i = skipSpaces(text, i + 1);
      while (text[i] !== "]") {
        const end = canonicalValueEnd(text, i, slashes);
        found.push(end < 0 ? undefined : text.slice(i, end));
        i = skipSpaces(text, end < 0 ? valueEnd(text, i, slashes) : end);
        if (text[i] === ",") i = skipSpaces(text, i + 1);
      }
      i += 1;
    } else {
      if (key === name) found = null;
      i = valueEnd(text, i, slashes);
    }
    i = skipSpaces(text, i);
    if (text[i] === ",") i = skipSpaces(text, i + 1);
  }
  return found !== null && found.length === parsed.length ? found : null;
}
