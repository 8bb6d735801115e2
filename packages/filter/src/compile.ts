import { filterError } from "./errors.ts";
import type { ComparisonOperator } from "./lexer.ts";
import { parseFilter, type FieldRef, type FilterNode, type Literal } from "./parser.ts";

/** A query parameter value: every user value reaches Postgres as one of these, never as SQL. */
export type FilterParam = string | readonly string[];

/**
 * Adds a parameter and returns its placeholder with the cast that fixes its type:
 * `$7::text` for a string, `$7::text[]` for an array (e.g. a jsonb path for `#>`).
 */
export type BindParam = (value: FilterParam) => string;

export interface FilterColumns {
  /**
   * The SQL for a field path, yielding jsonb (SQL NULL when absent), or undefined when the
   * name is unknown (the filter is then refused, naming it). The SQL is trusted as written:
   * put any part of `path` into it only through `bind`.
   */
  resolve(path: readonly string[], bind: BindParam): { sql: string } | undefined;
}

export interface CompiledFilter {
  /** A boolean SQL expression, never NULL, safe to AND into a WHERE clause. */
  sql: string;
  /** The values for $firstParam, $firstParam+1, … in order. */
  params: FilterParam[];
}

/**
 * Compiles a filter to a parameterized SQL predicate, numbering parameters from `firstParam`.
 * Throws FilterError (a DomainError "invalid-request") naming the position of the problem.
 */
export function compileFilter(
  expr: string,
  columns: FilterColumns,
  firstParam: number,
): CompiledFilter {
  if (!Number.isSafeInteger(firstParam) || firstParam < 1)
    throw new RangeError(`firstParam must be a positive integer, got ${firstParam}`);
  // Only trees from parseFilter are compiled: it has already refused what Postgres would fail on.
  const tree = parseFilter(expr);
  const params = new Params(firstParam);
  const sql = new Compiler(columns, params).node(tree);
  return { sql, params: params.values };
}

/** Reuses a placeholder for an equal value of the same cast: repeated paths cost one param. */
class Params {
  readonly values: FilterParam[] = [];
  private readonly seen = new Map<string, string>();
  private readonly first: number;
  constructor(first: number) {
    this.first = first;
  }

  add(value: FilterParam, cast: "text" | "numeric" | "text[]"): string {
    const key = `${cast}:${JSON.stringify(value)}`;
    let placeholder = this.seen.get(key);
    if (placeholder === undefined) {
      this.values.push(typeof value === "string" ? value : [...value]);
      placeholder = `$${this.first + this.values.length - 1}::${cast}`;
      this.seen.set(key, placeholder);
    }
    return placeholder;
  }
}

/*
 * Every predicate is two-valued (coalesce(…, false)), so NOT is a plain complement and no
 * SQL NULL leaks into AND/OR. Fields are compared as jsonb, never cast, so no stored value can
 * make the query fail.
 */
class Compiler {
  private readonly columns: FilterColumns;
  private readonly params: Params;
  constructor(columns: FilterColumns, params: Params) {
    this.columns = columns;
    this.params = params;
  }

  node(n: FilterNode): string {
    switch (n.kind) {
      case "and":
      case "or":
        return `(${n.items.map((item) => this.node(item)).join(` ${n.kind} `)})`;
      case "not":
        return `(not ${this.node(n.item)})`;
      case "isNull": {
        const v = this.field(n.field);
        return `(coalesce(jsonb_typeof(${v}), 'null') ${n.negated ? "<>" : "="} 'null')`;
      }
      case "compare":
        return this.compare(n.field, n.op, n.value);
      case "in": {
        const v = this.field(n.field);
        const list = n.values.map((value) => this.literal(value)).join(", ");
        return n.negated
          ? `coalesce(jsonb_typeof(${v}) <> 'null' and ${v} not in (${list}), false)`
          : `coalesce(${v} in (${list}), false)`;
      }
      case "like": {
        const v = this.field(n.field);
        const like = `(${v} #>> '{}') ${n.caseInsensitive ? "ilike" : "like"} ${this.params.add(n.pattern, "text")}`;
        return `coalesce(jsonb_typeof(${v}) = 'string' and ${n.negated ? `not (${like})` : like}, false)`;
      }
      case "contains": {
        const v = this.field(n.field);
        const text = this.params.add(n.value, "text");
        const inString = `strpos(${v} #>> '{}', ${text}) ${n.negated ? "=" : ">"} 0`;
        const inArray = `${n.negated ? "not " : ""}${v} @> jsonb_build_array(${text})`;
        return `coalesce(case jsonb_typeof(${v}) when 'string' then ${inString} when 'array' then ${inArray} else false end, false)`;
      }
    }
  }

  private compare(field: FieldRef, op: ComparisonOperator, value: Literal): string {
    const v = this.field(field);
    const lit = this.literal(value);
    switch (op) {
      case "=":
        return `coalesce(${v} = ${lit}, false)`;
      case "!=":
        return `coalesce(jsonb_typeof(${v}) <> 'null' and ${v} <> ${lit}, false)`;
      default:
        // jsonb orders across types (null < string < number < boolean); only like with like
        // is meaningful, so other types never match an order.
        return `coalesce(jsonb_typeof(${v}) = '${value.type}' and ${v} ${op} ${lit}, false)`;
    }
  }

  private literal(value: Literal): string {
    switch (value.type) {
      case "string":
        return `to_jsonb(${this.params.add(value.value, "text")})`;
      case "number":
        return `to_jsonb(${this.params.add(value.text, "numeric")})`;
      case "boolean":
        return `'${value.value}'::jsonb`;
    }
  }

  private field(ref: FieldRef): string {
    const resolved = this.columns.resolve(ref.path, (value) =>
      this.params.add(value, typeof value === "string" ? "text" : "text[]"),
    );
    if (!resolved)
      throw filterError(`unknown field ${JSON.stringify(ref.path.join("."))}`, ref.position);
    return `(${resolved.sql})`;
  }
}
