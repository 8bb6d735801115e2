import { FilterError, filterError } from "./errors.ts";
import { tokenize, type ComparisonOperator, type Keyword, type Token } from "./lexer.ts";

export const FILTER_LIMITS = {
  /**
   * Characters (UTF-16 code units) in one expression: room for an IN list of `maxInList` trace
   * ids (`trace_id in ('…32 hex…', …)`, ~35 000), which a caller fetching known spans writes.
   */
  maxLength: 40_000,
  /** Parentheses and NOTs enclosing any point of the expression. */
  maxDepth: 50,
  /** Values in one IN list. */
  maxInList: 1000,
} as const;

/** A field as written: its path segments and where it starts (1-based). */
export interface FieldRef {
  path: readonly string[];
  position: number;
}

export type Literal =
  | { type: "string"; value: string }
  /** The source text, kept exact: Postgres numeric, not a JS double, does the arithmetic. */
  | { type: "number"; text: string }
  | { type: "boolean"; value: boolean };

export type FilterNode =
  | { kind: "and" | "or"; items: readonly FilterNode[] }
  | { kind: "not"; item: FilterNode }
  | { kind: "compare"; field: FieldRef; op: ComparisonOperator; value: Literal }
  | { kind: "in"; field: FieldRef; values: readonly Literal[]; negated: boolean }
  | {
      kind: "like";
      field: FieldRef;
      pattern: string;
      caseInsensitive: boolean;
      negated: boolean;
    }
  | { kind: "contains"; field: FieldRef; value: string; negated: boolean }
  | { kind: "isNull"; field: FieldRef; negated: boolean };

/** Parses a filter into its syntax tree; throws FilterError (a 400 DomainError) when invalid. */
export function parseFilter(expr: string): FilterNode {
  if (expr.length > FILTER_LIMITS.maxLength)
    throw filterError(
      `longer than ${FILTER_LIMITS.maxLength} characters`,
      FILTER_LIMITS.maxLength + 1,
    );
  if (expr.trim() === "") throw new FilterError("filter must not be empty", 1);
  return new Parser(tokenize(expr)).parse();
}

const OPERATOR_HINT = "=, !=, <, <=, >, >=, IN, NOT IN, LIKE, ILIKE, CONTAINS or IS";

class Parser {
  private i = 0;
  private depth = 0;
  private readonly tokens: readonly Token[];
  constructor(tokens: readonly Token[]) {
    this.tokens = tokens;
  }

  parse(): FilterNode {
    const node = this.or();
    const t = this.peek();
    if (t.kind === ")") throw filterError('unmatched ")"', t.pos);
    if (t.kind !== "end") throw this.expected("AND, OR or the end of the filter", t);
    return node;
  }

  // OR and AND chains are loops, not recursion: only ( and NOT nest, and both are counted.
  private or(): FilterNode {
    const items = [this.and()];
    while (this.keyword("OR")) items.push(this.and());
    return items.length === 1 ? items[0]! : { kind: "or", items };
  }

  private and(): FilterNode {
    const items = [this.unary()];
    while (this.keyword("AND")) items.push(this.unary());
    return items.length === 1 ? items[0]! : { kind: "and", items };
  }

  private unary(): FilterNode {
    const t = this.peek();
    if (this.keyword("NOT")) return this.nested(t, () => ({ kind: "not", item: this.unary() }));
    if (t.kind === "(") {
      this.i++;
      return this.nested(t, () => {
        const node = this.or();
        const close = this.peek();
        if (close.kind !== ")")
          throw this.expected(`")" (for the "(" at position ${t.pos})`, close);
        this.i++;
        return node;
      });
    }
    return this.predicate();
  }

  private nested(at: Token, inner: () => FilterNode): FilterNode {
    if (++this.depth > FILTER_LIMITS.maxDepth)
      throw filterError(`nesting deeper than ${FILTER_LIMITS.maxDepth} levels`, at.pos);
    const node = inner();
    this.depth--;
    return node;
  }

  private predicate(): FilterNode {
    const t = this.next();
    if (t.kind === "keyword")
      throw this.expected(`a field name (quote reserved words: "${t.text}")`, t);
    if (t.kind !== "path")
      throw this.expected(t.kind === "end" || t.kind === ")" ? "a condition" : "a field name", t);
    const field: FieldRef = { path: t.segments, position: t.pos };
    const opToken = this.next();
    if (opToken.kind === "op") return this.comparison(field, opToken, opToken.op);
    if (opToken.kind !== "keyword")
      throw this.expected(`${OPERATOR_HINT} after ${t.text}`, opToken);
    if (opToken.keyword === "IS") {
      const negated = this.keyword("NOT");
      if (!this.keyword("NULL"))
        throw this.expected(`NULL after IS${negated ? " NOT" : ""}`, this.peek());
      return { kind: "isNull", field, negated };
    }
    const negated = opToken.keyword === "NOT";
    const verb = negated ? this.next() : opToken;
    const keyword = verb.kind === "keyword" ? verb.keyword : undefined;
    switch (keyword) {
      case "IN":
        return { kind: "in", field, values: this.list(verb), negated };
      case "LIKE":
      case "ILIKE":
        return {
          kind: "like",
          field,
          pattern: likePattern(this.string(verb)),
          caseInsensitive: keyword === "ILIKE",
          negated,
        };
      case "CONTAINS":
        return { kind: "contains", field, value: this.string(verb).value, negated };
      default:
        throw negated
          ? this.expected("IN, LIKE, ILIKE or CONTAINS after NOT", verb)
          : this.expected(`${OPERATOR_HINT} after ${t.text}`, verb);
    }
  }

  private comparison(field: FieldRef, opToken: Token, op: ComparisonOperator): FilterNode {
    const valueToken = this.peek();
    // `x = null` reads as what people mean by it; an order against null means nothing.
    if (valueToken.kind === "keyword" && valueToken.keyword === "NULL") {
      if (op !== "=" && op !== "!=")
        throw filterError(
          `cannot compare with null using "${opToken.text}"; use IS NULL`,
          valueToken.pos,
        );
      this.i++;
      return { kind: "isNull", field, negated: op === "!=" };
    }
    return { kind: "compare", field, op, value: this.literal(opToken) };
  }

  private list(verb: Token): Literal[] {
    const open = this.next();
    if (open.kind !== "(") throw this.expected(`"(" after ${verb.text.toUpperCase()}`, open);
    const values: Literal[] = [];
    for (;;) {
      const t = this.peek();
      if (values.length === FILTER_LIMITS.maxInList)
        throw filterError(`an IN list may hold at most ${FILTER_LIMITS.maxInList} values`, t.pos);
      if (t.kind === "keyword" && t.keyword === "NULL")
        throw filterError("null cannot be in an IN list; use IS NULL", t.pos);
      values.push(this.literal(values.length === 0 ? open : this.tokens[this.i - 1]!));
      const sep = this.next();
      if (sep.kind === ")") return values;
      if (sep.kind !== ",") throw this.expected('"," or ")" in the IN list', sep);
    }
  }

  private string(after: Token): { value: string; pos: number } {
    const t = this.next();
    if (t.kind !== "string")
      throw this.expected(`a quoted string after ${after.text.toUpperCase()}`, t);
    return { value: t.value, pos: t.pos };
  }

  private literal(after: Token): Literal {
    const t = this.next();
    switch (t.kind) {
      case "string":
        return { type: "string", value: t.value };
      case "number":
        checkNumber(t);
        return { type: "number", text: t.text };
      case "keyword":
        if (t.keyword === "TRUE" || t.keyword === "FALSE")
          return { type: "boolean", value: t.keyword === "TRUE" };
        break;
      default:
        break; // no other token is a value
    }
    // "abc" is a field name; people who write it usually meant the string 'abc'.
    const hint = t.kind === "path" && t.text.startsWith('"') ? " (strings take single quotes)" : "";
    throw this.expected(`a value after ${JSON.stringify(after.text)}${hint}`, t);
  }

  private keyword(k: Keyword): boolean {
    const t = this.peek();
    if (t.kind !== "keyword" || t.keyword !== k) return false;
    this.i++;
    return true;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== "end") this.i++;
    return t;
  }

  private expected(what: string, found: Token): FilterError {
    const got = found.kind === "end" ? "the end of the filter" : JSON.stringify(clip(found.text));
    return filterError(`expected ${what}`, found.pos, got);
  }
}

function clip(text: string): string {
  return text.length > 30 ? `${text.slice(0, 30)}…` : text;
}

/**
 * Numbers go to Postgres as exact numeric text. Postgres refuses an exponent beyond ±1000
 * (a 500 if it got there), and a value a double cannot hold is surely a mistake: refuse both.
 */
function checkNumber(t: Token & { kind: "number" }): void {
  const [mantissa = "", exponent = "0"] = t.text.split(/[eE]/);
  const n = Number(t.text);
  const underflow = n === 0 && /[1-9]/.test(mantissa);
  if (!Number.isFinite(n) || underflow || Math.abs(Number(exponent)) > 1000)
    throw filterError(`number ${clip(t.text)} is out of range`, t.pos);
}

/**
 * Postgres LIKE treats backslash as its escape character and fails at run time on a pattern
 * that ends in a lone one; refuse that here instead.
 */
function likePattern(t: { value: string; pos: number }): string {
  if (/(^|[^\\])(\\\\)*\\$/.test(t.value))
    throw filterError("a LIKE pattern must not end with a lone backslash (write \\\\)", t.pos);
  return t.value;
}
