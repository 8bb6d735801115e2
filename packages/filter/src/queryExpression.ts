import { DomainError } from "@argus/platform";

/**
 * A trace/session task's `query_filters.expression`: the ids of its named filters (`A`-`E`)
 * combined with AND, OR, NOT (any case) and parentheses; NOT binds tightest, then AND, then OR.
 */
export type QueryExpression =
  | { op: "id"; id: string }
  | { op: "not"; of: QueryExpression }
  | { op: "and" | "or"; left: QueryExpression; right: QueryExpression };

export const QUERY_EXPRESSION_MAX = 512;

const refuse = (what: string) =>
  new DomainError("invalid-request", `query_filters.expression: ${what}`);

/** The expression over `declared` ids; every id it names must be one of them. */
export function parseQueryExpression(text: string, declared: readonly string[]): QueryExpression {
  if (text.length > QUERY_EXPRESSION_MAX) throw refuse(`longer than ${QUERY_EXPRESSION_MAX}`);
  const tokens = text.match(/\(|\)|[A-Za-z_]+|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at]?.toUpperCase();
  const primary = (): QueryExpression => {
    const t = tokens[at++];
    if (t === undefined) throw refuse("ends too early");
    if (t === "(") {
      const inner = or();
      if (tokens[at++] !== ")") throw refuse("a ( is not closed");
      return inner;
    }
    if (t.toUpperCase() === "NOT") return { op: "not", of: primary() };
    if (!declared.includes(t)) throw refuse(`${t} is not a declared filter id`);
    return { op: "id", id: t };
  };
  const and = (): QueryExpression => {
    let left = primary();
    while (peek() === "AND") {
      at++;
      left = { op: "and", left, right: primary() };
    }
    return left;
  };
  const or = (): QueryExpression => {
    let left = and();
    while (peek() === "OR") {
      at++;
      left = { op: "or", left, right: and() };
    }
    return left;
  };
  const tree = or();
  if (at < tokens.length) throw refuse(`unexpected ${tokens[at]}`);
  return tree;
}

/** The expression as one boolean of its leaves (SQL, or a test in memory). */
export function foldQueryExpression<T>(
  e: QueryExpression,
  leaf: (id: string) => T,
  not: (t: T) => T,
  both: (op: "and" | "or", l: T, r: T) => T,
): T {
  switch (e.op) {
    case "id":
      return leaf(e.id);
    case "not":
      return not(foldQueryExpression(e.of, leaf, not, both));
    case "and":
    case "or":
      return both(
        e.op,
        foldQueryExpression(e.left, leaf, not, both),
        foldQueryExpression(e.right, leaf, not, both),
      );
    default: {
      const never: never = e;
      return never;
    }
  }
}
