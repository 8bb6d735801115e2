import { filterError, type FilterError } from "./errors.ts";

export type Keyword =
  "AND" | "OR" | "NOT" | "IN" | "LIKE" | "ILIKE" | "CONTAINS" | "IS" | "NULL" | "TRUE" | "FALSE";

const KEYWORDS: ReadonlySet<string> = new Set<Keyword>([
  "AND",
  "OR",
  "NOT",
  "IN",
  "LIKE",
  "ILIKE",
  "CONTAINS",
  "IS",
  "NULL",
  "TRUE",
  "FALSE",
]);

export type ComparisonOperator = "=" | "!=" | "<" | "<=" | ">" | ">=";

/** `pos` is 1-based; `text` is the source slice, quoted back in error messages. */
export type Token = { pos: number; text: string } & (
  | { kind: "path"; segments: string[] }
  | { kind: "string"; value: string }
  | { kind: "number"; text: string }
  | { kind: "keyword"; keyword: Keyword }
  | { kind: "op"; op: ComparisonOperator }
  | { kind: "(" | ")" | "," | "end" }
);

// Longest first, so "<=" is not read as "<" then "=".
const OPERATORS: readonly [string, ComparisonOperator][] = [
  ["==", "="],
  ["!=", "!="],
  ["<>", "!="],
  ["<=", "<="],
  [">=", ">="],
  ["=", "="],
  ["<", "<"],
  [">", ">"],
];

const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
// After a dot a segment may start with a digit: `messages.0.content` indexes an array.
const SEGMENT = /[A-Za-z0-9_]+/y;

export function tokenize(src: string): Token[] {
  // Postgres text cannot hold NUL: a parameter containing one would fail at run time.
  const nul = src.indexOf("\0");
  if (nul >= 0) throw filterError("NUL character not allowed", nul + 1);
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    const pos = start + 1;
    if (c === "(" || c === ")" || c === ",") {
      tokens.push({ kind: c, pos, text: c });
      i++;
      continue;
    }
    const op = OPERATORS.find(([text]) => src.startsWith(text, i));
    if (op) {
      tokens.push({ kind: "op", op: op[1], pos, text: op[0] });
      i += op[0].length;
      continue;
    }
    if (c === "'") {
      const { value, end } = quoted(src, i, "string");
      tokens.push({ kind: "string", value, pos, text: src.slice(start, end) });
      i = end;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(src);
    if (number) {
      i += number[0].length;
      if (/[A-Za-z0-9_.]/.test(src[i] ?? "")) throw unexpected(src, i);
      tokens.push({ kind: "number", text: number[0], pos });
      continue;
    }
    const word = readWord(src, i);
    if (!word) throw unexpected(src, i);
    i = word.end;
    const upper = word.segment.toUpperCase();
    if (!word.quoted && src[i] !== "." && KEYWORDS.has(upper)) {
      tokens.push({ kind: "keyword", keyword: upper as Keyword, pos, text: word.segment });
      continue;
    }
    const segments = [word.segment];
    while (src[i] === ".") {
      const next = readWord(src, i + 1, SEGMENT);
      if (!next) throw filterError(`expected a field name after "."`, i + 2);
      segments.push(next.segment);
      i = next.end;
    }
    tokens.push({ kind: "path", segments, pos, text: src.slice(start, i) });
  }
  tokens.push({ kind: "end", pos: src.length + 1, text: "" });
  return tokens;
}

/** One path segment: a bare word, or a "double-quoted" / `backquoted` name taken literally. */
function readWord(
  src: string,
  i: number,
  bare: RegExp = WORD,
): { segment: string; end: number; quoted: boolean } | undefined {
  const c = src[i];
  if (c === '"' || c === "`") {
    const { value, end } = quoted(src, i, "field name");
    if (value === "") throw filterError("a quoted field name must not be empty", i + 1);
    return { segment: value, end, quoted: true };
  }
  bare.lastIndex = i;
  const m = bare.exec(src);
  return m ? { segment: m[0], end: i + m[0].length, quoted: false } : undefined;
}

/** A quoted run starting at `i`; the quote character doubled stands for itself (SQL style). */
function quoted(src: string, i: number, what: string): { value: string; end: number } {
  const q = src[i]!;
  let value = "";
  let j = i + 1;
  for (;;) {
    const k = src.indexOf(q, j);
    if (k < 0) throw filterError(`unterminated ${what} starting`, i + 1);
    value += src.slice(j, k);
    if (src[k + 1] !== q) return { value, end: k + 1 };
    value += q;
    j = k + 2;
  }
}

function unexpected(src: string, i: number): FilterError {
  const c = String.fromCodePoint(src.codePointAt(i)!);
  return filterError(`unexpected character ${JSON.stringify(c)}`, i + 1);
}
