import { DomainError } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { FILTER_LIMITS, FilterError, parseFilter, type FilterNode } from "../src/index.ts";

/** The error a filter raises: its position and message. */
function failure(expr: string): { position: number; message: string } {
  try {
    parseFilter(expr);
  } catch (err) {
    expect(err).toBeInstanceOf(FilterError);
    const e = err as FilterError;
    return { position: e.position, message: e.message };
  }
  throw new Error(`expected ${JSON.stringify(expr)} to be refused`);
}

const field = (path: string[], position: number) => ({ path, position });
const str = (value: string) => ({ type: "string", value }) as const;
const num = (text: string) => ({ type: "number", text }) as const;

/** A compact rendering of a tree, so precedence tests read like the expressions. */
function show(n: FilterNode): string {
  switch (n.kind) {
    case "and":
    case "or":
      return `(${n.items.map(show).join(` ${n.kind} `)})`;
    case "not":
      return `not ${show(n.item)}`;
    case "compare":
      return `${n.field.path.join(".")}${n.op}${"text" in n.value ? n.value.text : String(n.value.value)}`;
    default:
      return `${n.kind}:${n.field.path.join(".")}`;
  }
}

describe("parseFilter: the documented examples", () => {
  it("parses equality on a bare field", () => {
    expect(parseFilter("input = 'What is 2+2?'")).toEqual({
      kind: "compare",
      field: field(["input"], 1),
      op: "=",
      value: str("What is 2+2?"),
    });
  });

  it("parses a dotted path into its segments", () => {
    expect(parseFilter("annotation.Correctness.label = 'Correct'")).toMatchObject({
      field: field(["annotation", "Correctness", "label"], 1),
    });
  });

  it("parses AND of the two", () => {
    const n = parseFilter("input = 'What is 2+2?' AND annotation.Correctness.label = 'Correct'");
    expect(n.kind).toBe("and");
    expect(show(n)).toBe("(input=What is 2+2? and annotation.Correctness.label=Correct)");
  });
});

describe("parseFilter: precedence and grouping", () => {
  it.each([
    ["a=1 or b=2 and c=3", "(a=1 or (b=2 and c=3))"],
    ["a=1 and b=2 or c=3", "((a=1 and b=2) or c=3)"],
    ["not a=1 and b=2", "(not a=1 and b=2)"],
    ["not a=1 or not b=2 and c=3", "(not a=1 or (not b=2 and c=3))"],
    ["(a=1 or b=2) and c=3", "((a=1 or b=2) and c=3)"],
    ["not (a=1 or b=2)", "not (a=1 or b=2)"],
    ["not not a=1", "not not a=1"],
    ["a=1 or b=2 or c=3 or d=4", "(a=1 or b=2 or c=3 or d=4)"],
    ["((a=1))", "a=1"],
  ])("%s → %s", (expr, tree) => {
    expect(show(parseFilter(expr))).toBe(tree);
  });

  it("reads keywords in any case", () => {
    expect(show(parseFilter("NoT a=1 AnD b=2 oR c=3"))).toBe("((not a=1 and b=2) or c=3)");
  });

  it("needs no spaces around operators and parentheses", () => {
    expect(show(parseFilter("(a>=1)and(b<>2)"))).toBe("(a>=1 and b!=2)");
  });
});

describe("parseFilter: operators", () => {
  it.each([
    ["=", "="],
    ["==", "="],
    ["!=", "!="],
    ["<>", "!="],
    ["<", "<"],
    ["<=", "<="],
    [">", ">"],
    [">=", ">="],
  ])("%s is %s", (written, op) => {
    expect(parseFilter(`x ${written} 1`)).toMatchObject({ kind: "compare", op });
  });

  it("parses IN and NOT IN lists of mixed literals", () => {
    expect(parseFilter("x in ('a', 1, true)")).toEqual({
      kind: "in",
      field: field(["x"], 1),
      values: [str("a"), num("1"), { type: "boolean", value: true }],
      negated: false,
    });
    expect(parseFilter("x NOT IN (2)")).toMatchObject({ kind: "in", negated: true });
  });

  it("parses LIKE, NOT LIKE, ILIKE and NOT ILIKE", () => {
    expect(parseFilter("x like 'a%'")).toMatchObject({
      kind: "like",
      pattern: "a%",
      caseInsensitive: false,
      negated: false,
    });
    expect(parseFilter("x not like '_b'")).toMatchObject({ negated: true, caseInsensitive: false });
    expect(parseFilter("x ILIKE 'A%'")).toMatchObject({ negated: false, caseInsensitive: true });
    expect(parseFilter("x not ilike 'A%'")).toMatchObject({ negated: true, caseInsensitive: true });
  });

  it("parses CONTAINS and NOT CONTAINS", () => {
    expect(parseFilter("x contains 'needle'")).toEqual({
      kind: "contains",
      field: field(["x"], 1),
      value: "needle",
      negated: false,
    });
    expect(parseFilter("x not contains 'n'")).toMatchObject({ kind: "contains", negated: true });
  });

  it("parses IS NULL and IS NOT NULL", () => {
    expect(parseFilter("x is null")).toEqual({
      kind: "isNull",
      field: field(["x"], 1),
      negated: false,
    });
    expect(parseFilter("x IS NOT NULL")).toMatchObject({ kind: "isNull", negated: true });
  });

  it("reads = null as IS NULL and != null as IS NOT NULL", () => {
    expect(parseFilter("x = null")).toMatchObject({ kind: "isNull", negated: false });
    expect(parseFilter("x <> NULL")).toMatchObject({ kind: "isNull", negated: true });
  });
});

describe("parseFilter: literals", () => {
  it("unescapes doubled single quotes", () => {
    expect(parseFilter("x = 'it''s'")).toMatchObject({ value: str("it's") });
    expect(parseFilter("x = ''''")).toMatchObject({ value: str("'") });
    expect(parseFilter("x = ''")).toMatchObject({ value: str("") });
  });

  it("keeps everything else inside a string as written", () => {
    const raw = String.raw`a\n "b" ` + "`c` %_ -- /* ; ) ( and or ünï 🙂";
    expect(parseFilter(`x = '${raw}'`)).toMatchObject({ value: str(raw) });
  });

  it.each(["0", "42", "-7", "3.25", "-0.5", ".5", "5.", "1e3", "2.5E-3", "-1e+2"])(
    "keeps the number %s exactly",
    (text) => {
      expect(parseFilter(`x = ${text}`)).toMatchObject({ value: num(text) });
    },
  );

  it("keeps numbers beyond double precision exactly", () => {
    expect(parseFilter("x = 12345678901234567890.123456789")).toMatchObject({
      value: num("12345678901234567890.123456789"),
    });
  });

  it("parses true and false in any case", () => {
    expect(parseFilter("x = TRUE")).toMatchObject({ value: { type: "boolean", value: true } });
    expect(parseFilter("x != false")).toMatchObject({ value: { type: "boolean", value: false } });
  });
});

describe("parseFilter: field names", () => {
  it("takes a double-quoted or backquoted segment as one key", () => {
    expect(parseFilter('"my col" = 1')).toMatchObject({ field: field(["my col"], 1) });
    expect(parseFilter("`a.b` = 1")).toMatchObject({ field: field(["a.b"], 1) });
    expect(parseFilter('metadata."a.b".c = 1')).toMatchObject({
      field: field(["metadata", "a.b", "c"], 1),
    });
    expect(parseFilter("m.`x y` = 1")).toMatchObject({ field: field(["m", "x y"], 1) });
  });

  it("unescapes a doubled quote inside a quoted name", () => {
    expect(parseFilter('"say ""hi""" = 1')).toMatchObject({ field: field(['say "hi"'], 1) });
    expect(parseFilter("`a``b` = 1")).toMatchObject({ field: field(["a`b"], 1) });
  });

  it("lets reserved words be field names when quoted or after a dot", () => {
    expect(parseFilter('"and" = 1')).toMatchObject({ field: field(["and"], 1) });
    expect(parseFilter("meta.null = 1")).toMatchObject({ field: field(["meta", "null"], 1) });
    expect(parseFilter("order.in = 1")).toMatchObject({ field: field(["order", "in"], 1) });
  });

  it("allows numeric segments after a dot, for array elements", () => {
    expect(parseFilter("messages.0.content = 'x'")).toMatchObject({
      field: field(["messages", "0", "content"], 1),
    });
  });

  it("keeps the case of field names", () => {
    expect(parseFilter("Annotation.Correctness = 1")).toMatchObject({
      field: field(["Annotation", "Correctness"], 1),
    });
  });

  it("records where each field starts", () => {
    const n = parseFilter("a = 1 and  (b.c = 2)");
    expect(n).toMatchObject({
      items: [{ field: field(["a"], 1) }, { field: field(["b", "c"], 13) }],
    });
  });
});

describe("parseFilter: errors name the position and what was expected", () => {
  it.each([
    ["", 1, "filter must not be empty"],
    ["   \n\t ", 1, "filter must not be empty"],
    ["input = ", 9, 'expected a value after "=" at position 9, found the end of the filter'],
    ["x = y", 5, 'expected a value after "=" at position 5, found "y"'],
    ['x = "y"', 5, 'expected a value after "=" (strings take single quotes) at position 5'],
    ["x", 2, "expected =, !=, <, <=, >, >=, IN, NOT IN, LIKE, ILIKE, CONTAINS or IS after x"],
    ["x 1", 3, 'found "1"'],
    ["= 1", 1, 'expected a field name at position 1, found "="'],
    ["and = 1", 1, 'expected a field name (quote reserved words: "and") at position 1'],
    ["x = 1 or in = 2", 10, '(quote reserved words: "in")'],
    ["x = 1 and", 10, "expected a condition at position 10, found the end of the filter"],
    ["x = 1 y = 2", 7, 'expected AND, OR or the end of the filter at position 7, found "y"'],
    ["(x = 1", 7, 'expected ")" (for the "(" at position 1) at position 7'],
    ["x = 1)", 6, 'unmatched ")" at position 6'],
    ["()", 2, 'expected a condition at position 2, found ")"'],
    ["x = 'abc", 5, "unterminated string starting at position 5"],
    ['"abc = 1', 1, "unterminated field name starting at position 1"],
    ['"" = 1', 1, "a quoted field name must not be empty at position 1"],
    ["x = 1 # 2", 7, 'unexpected character "#" at position 7'],
    ["x ≠ 1", 3, 'unexpected character "≠" at position 3'],
    ["x = 🙂", 5, 'unexpected character "🙂" at position 5'],
    ["x = 1abc", 6, 'unexpected character "a" at position 6'],
    ["x = 1.2.3", 8, 'unexpected character "." at position 8'],
    ["x = 1e", 6, 'unexpected character "e" at position 6'],
    ["x = -y", 5, 'unexpected character "-" at position 5'],
    ["a. = 1", 3, 'expected a field name after "." at position 3'],
    ["a.b. = 1", 5, 'expected a field name after "." at position 5'],
    ["x in 1", 6, 'expected "(" after IN at position 6, found "1"'],
    ["x in ()", 7, 'expected a value after "(" at position 7, found ")"'],
    ["x in (1,)", 9, 'expected a value after "," at position 9, found ")"'],
    ["x in (1 2)", 9, 'expected "," or ")" in the IN list at position 9, found "2"'],
    ["x in (1, null)", 10, "null cannot be in an IN list; use IS NULL at position 10"],
    ["x like 1", 8, 'expected a quoted string after LIKE at position 8, found "1"'],
    ["x contains y", 12, "expected a quoted string after CONTAINS at position 12"],
    ["x not = 1", 7, "expected IN, LIKE, ILIKE or CONTAINS after NOT at position 7"],
    ["x is 1", 6, 'expected NULL after IS at position 6, found "1"'],
    ["x is not 'a'", 10, "expected NULL after IS NOT at position 10"],
    ["x > null", 5, 'cannot compare with null using ">"; use IS NULL at position 5'],
    ["x = 1e400", 5, "number 1e400 is out of range at position 5"],
    ["x = 1e-400", 5, "number 1e-400 is out of range at position 5"],
    ["x = 0e1001", 5, "number 0e1001 is out of range at position 5"],
    ["x = 0.0e-1001", 5, "number 0.0e-1001 is out of range at position 5"],
    ["x = 'a\0b'", 7, "NUL character not allowed at position 7"],
    [String.raw`x like 'ab\'`, 8, "a LIKE pattern must not end with a lone backslash"],
    [String.raw`x ilike '\\\'`, 9, "a LIKE pattern must not end with a lone backslash"],
  ])("%j → position %i", (expr, position, message) => {
    const e = failure(expr);
    expect(e.position).toBe(position);
    expect(e.message).toContain(message);
    expect(e.message.startsWith("filter")).toBe(true);
  });

  it("is an invalid-request DomainError, so callers answer 400", () => {
    try {
      parseFilter("x =");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).type).toBe("invalid-request");
    }
  });

  it("accepts a LIKE pattern ending in an escaped backslash", () => {
    expect(parseFilter(String.raw`x like 'a\\'`)).toMatchObject({ pattern: String.raw`a\\` });
  });

  it("accepts the smallest and largest numbers a double holds", () => {
    expect(() =>
      parseFilter("x = 1e-300 or x = -1.5e308 or x = 0.0 or x = 0e1000 or x = 0e-1000"),
    ).not.toThrow();
  });

  it("quotes long tokens only in part", () => {
    const e = failure(`x = 1 ${"y".repeat(100)}`);
    expect(e.message).toContain(`found "${"y".repeat(30)}…"`);
  });
});

describe("parseFilter: limits", () => {
  const atLength = (n: number) => `x = '${"a".repeat(n - 6)}'`;

  it(`accepts exactly ${FILTER_LIMITS.maxLength} characters and refuses one more`, () => {
    const max = FILTER_LIMITS.maxLength;
    expect(max).toBe(40_000);
    expect(atLength(max)).toHaveLength(max);
    expect(() => parseFilter(atLength(max))).not.toThrow();
    const e = failure(atLength(max + 1));
    expect(e.position).toBe(max + 1);
    expect(e.message).toContain(`longer than ${max} characters`);
  });

  it("refuses an over-long filter even when it is all whitespace", () => {
    expect(failure(" ".repeat(FILTER_LIMITS.maxLength + 1)).message).toContain("longer than");
  });

  const parens = (n: number) => `${"(".repeat(n)}x = 1${")".repeat(n)}`;
  const nots = (n: number) => `${"not ".repeat(n)}x = 1`;

  it("accepts 50 nested parentheses and refuses 51", () => {
    expect(() => parseFilter(parens(50))).not.toThrow();
    const e = failure(parens(51));
    expect(e.position).toBe(51);
    expect(e.message).toContain("nesting deeper than 50 levels");
  });

  it("accepts 50 nested NOTs and refuses 51", () => {
    expect(show(parseFilter(nots(50)))).toBe(`${"not ".repeat(50)}x=1`);
    expect(failure(nots(51)).position).toBe(201);
  });

  it("counts parentheses and NOTs together", () => {
    expect(() => parseFilter(`${"not (".repeat(25)}x = 1${")".repeat(25)}`)).not.toThrow();
    expect(failure(`${"not (".repeat(25)}not x = 1${")".repeat(25)}`).message).toContain(
      "nesting deeper",
    );
  });

  it("does not count siblings as depth", () => {
    const wide = Array.from({ length: 200 }, () => "(((x = 1)))").join(" and ");
    expect(() => parseFilter(wide)).not.toThrow();
  });

  it("refuses deep nesting with an error, not a stack overflow, at the length limit", () => {
    expect(failure("(".repeat(9_999)).message).toContain("nesting deeper");
    expect(failure("not ".repeat(2_400)).message).toContain("nesting deeper");
  });

  it("parses a long flat chain without recursion trouble", () => {
    const chain = Array.from({ length: 1_400 }, (_, i) => `a=${i % 10}`).join(" or ");
    expect(chain.length).toBeLessThanOrEqual(10_000);
    expect(parseFilter(chain)).toMatchObject({ kind: "or" });
  });

  const list = (n: number) => `x in (${Array.from({ length: n }, (_, i) => i).join(",")})`;

  it("accepts an IN list of 1000 values and refuses 1001", () => {
    const n = parseFilter(list(1000));
    expect(n.kind === "in" && n.values).toHaveLength(1000);
    const e = failure(list(1001));
    expect(e.message).toContain("an IN list may hold at most 1000 values");
    expect(e.position).toBe(list(1000).length + 1); // the 1001st value, after the ","
  });
});
