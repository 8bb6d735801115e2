import { describe, expect, it } from "vitest";
import { compileFilter, FilterError, jsonObjectColumns, type FilterColumns } from "../src/index.ts";

const fields = jsonObjectColumns("t.doc");
const X = "((t.doc) #> $1::text[])";

describe("compileFilter: SQL per operator (field x, params from $1)", () => {
  it.each([
    ["x = 'a'", `coalesce(${X} = to_jsonb($2::text), false)`, [["x"], "a"]],
    ["x == 2.5", `coalesce(${X} = to_jsonb($2::numeric), false)`, [["x"], "2.5"]],
    ["x = true", `coalesce(${X} = 'true'::jsonb, false)`, [["x"]]],
    [
      "x != false",
      `coalesce(jsonb_typeof(${X}) <> 'null' and ${X} <> 'false'::jsonb, false)`,
      [["x"]],
    ],
    [
      "x <> 'a'",
      `coalesce(jsonb_typeof(${X}) <> 'null' and ${X} <> to_jsonb($2::text), false)`,
      [["x"], "a"],
    ],
    [
      "x > -3",
      `coalesce(jsonb_typeof(${X}) = 'number' and ${X} > to_jsonb($2::numeric), false)`,
      [["x"], "-3"],
    ],
    [
      "x <= 'm'",
      `coalesce(jsonb_typeof(${X}) = 'string' and ${X} <= to_jsonb($2::text), false)`,
      [["x"], "m"],
    ],
    [
      "x >= true",
      `coalesce(jsonb_typeof(${X}) = 'boolean' and ${X} >= 'true'::jsonb, false)`,
      [["x"]],
    ],
    [
      "x < 1e3",
      `coalesce(jsonb_typeof(${X}) = 'number' and ${X} < to_jsonb($2::numeric), false)`,
      [["x"], "1e3"],
    ],
    [
      "x in ('a', 1, false)",
      `coalesce(${X} in (to_jsonb($2::text), to_jsonb($3::numeric), 'false'::jsonb), false)`,
      [["x"], "a", "1"],
    ],
    [
      "x not in ('a')",
      `coalesce(jsonb_typeof(${X}) <> 'null' and ${X} not in (to_jsonb($2::text)), false)`,
      [["x"], "a"],
    ],
    [
      "x like 'a%'",
      `coalesce(jsonb_typeof(${X}) = 'string' and (${X} #>> '{}') like $2::text, false)`,
      [["x"], "a%"],
    ],
    [
      "x not like 'a%'",
      `coalesce(jsonb_typeof(${X}) = 'string' and not ((${X} #>> '{}') like $2::text), false)`,
      [["x"], "a%"],
    ],
    [
      "x ilike 'a%'",
      `coalesce(jsonb_typeof(${X}) = 'string' and (${X} #>> '{}') ilike $2::text, false)`,
      [["x"], "a%"],
    ],
    [
      "x contains 'b'",
      `coalesce(case jsonb_typeof(${X}) when 'string' then strpos(${X} #>> '{}', $2::text) > 0 when 'array' then ${X} @> jsonb_build_array($2::text) else false end, false)`,
      [["x"], "b"],
    ],
    [
      "x not contains 'b'",
      `coalesce(case jsonb_typeof(${X}) when 'string' then strpos(${X} #>> '{}', $2::text) = 0 when 'array' then not ${X} @> jsonb_build_array($2::text) else false end, false)`,
      [["x"], "b"],
    ],
    ["x is null", `(coalesce(jsonb_typeof(${X}), 'null') = 'null')`, [["x"]]],
    ["x is not null", `(coalesce(jsonb_typeof(${X}), 'null') <> 'null')`, [["x"]]],
    ["x = null", `(coalesce(jsonb_typeof(${X}), 'null') = 'null')`, [["x"]]],
  ])("%s", (expr, sql, params) => {
    expect(compileFilter(expr, fields, 1)).toEqual({ sql, params });
  });

  it("nests AND, OR and NOT with explicit parentheses", () => {
    const { sql } = compileFilter("not (x = 1 or x = 2) and x is not null", fields, 1);
    expect(sql).toBe(
      `((not (coalesce(${X} = to_jsonb($2::numeric), false) or coalesce(${X} = to_jsonb($3::numeric), false))) and (coalesce(jsonb_typeof(${X}), 'null') <> 'null'))`,
    );
  });
});

describe("compileFilter: parameters", () => {
  it("numbers parameters from firstParam, in order of appearance", () => {
    const { sql, params } = compileFilter("a = 'p' and b.c > 2", fields, 5);
    expect(params).toEqual([["a"], "p", ["b", "c"], "2"]);
    expect(sql).toContain("$5::text[]");
    expect(sql).toContain("$8::numeric");
    expect(sql).not.toMatch(/\$[1-4]\b/);
  });

  it("binds an equal value once per type, and never one parameter under two types", () => {
    const { sql, params } = compileFilter(
      "x = '1' or x = 1 or x = '1' or y in (1, '1')",
      fields,
      1,
    );
    expect(params).toEqual([["x"], "1", "1", ["y"]]);
    expect(sql).toContain("to_jsonb($2::text)");
    expect(sql).toContain("to_jsonb($3::numeric)");
    expect(sql.match(/\$2::numeric|\$3::text/g)).toBeNull();
  });

  it("rejects a firstParam that is not a positive integer", () => {
    expect(() => compileFilter("x = 1", fields, 0)).toThrow(RangeError);
    expect(() => compileFilter("x = 1", fields, 1.5)).toThrow(RangeError);
  });
});

describe("compileFilter: no user text ever reaches the SQL", () => {
  const attacks = [
    "x = 'a''; drop table t; --'",
    "x = ''' or 1=1 --'",
    "x like '%''); delete from t; --'",
    "x contains '$1'",
    "x in ('a', ''')--')",
    `"a'; drop table t; --" = 1`,
    '`x" or true or "` = 1',
    "x.`'}` = 'y'",
    "x = '\\'' or 1=1 --'",
  ];

  it.each(attacks)("%s", (expr) => {
    const { sql, params } = compileFilter(expr, fields, 1);
    // With the string literals and field names bound, the SQL has no quote the user wrote:
    // only the compiler's own fixed literals ('{}', 'null', type names, 'true'::jsonb).
    const own = sql.replace(/'(\{\}|null|string|number|boolean|array|true|false)'/g, "");
    expect(own).not.toMatch(/['";]|--|drop|delete/i);
    expect(params.length).toBeGreaterThan(0);
  });

  it("passes the value through byte for byte", () => {
    const { params } = compileFilter("x = 'a''; drop table t; --'", fields, 1);
    expect(params).toEqual([["x"], "a'; drop table t; --"]);
  });

  it("passes quoted field names through as path parameters", () => {
    const { params } = compileFilter(`meta."a'b"."c}d" = 1`, fields, 1);
    expect(params[0]).toEqual(["meta", "a'b", "c}d"]);
  });
});

describe("compileFilter: columns", () => {
  const only: FilterColumns = {
    resolve: (path) => (path.join(".") === "status" ? { sql: "to_jsonb(t.status)" } : undefined),
  };

  it("uses the resolver's SQL for the field", () => {
    expect(compileFilter("status = 'ok'", only, 3)).toEqual({
      sql: "coalesce((to_jsonb(t.status)) = to_jsonb($3::text), false)",
      params: ["ok"],
    });
  });

  it("refuses a field the resolver does not know, naming it and its position", () => {
    expect(() => compileFilter("status = 'ok' and my.\"odd name\" = 1", only, 1)).toThrow(
      'filter: unknown field "my.odd name" at position 19',
    );
    try {
      compileFilter("status = 'ok' or nope = 1", only, 1);
    } catch (err) {
      expect(err).toBeInstanceOf(FilterError);
      expect((err as FilterError).position).toBe(18);
    }
  });
});

describe("jsonObjectColumns", () => {
  const cols = jsonObjectColumns("x.fields", { id: "to_jsonb(x.id::text)", meta: "x.meta" });

  it("reads a path into the column through a text[] parameter", () => {
    expect(compileFilter("a.b.c is null", cols, 1)).toEqual({
      sql: "(coalesce(jsonb_typeof(((x.fields) #> $1::text[])), 'null') = 'null')",
      params: [["a", "b", "c"]],
    });
  });

  it("routes an extra name to its own expression, and the rest of the path into it", () => {
    expect(compileFilter("id is null", cols, 1).sql).toContain("(to_jsonb(x.id::text))");
    const { sql, params } = compileFilter("meta.topic.name is null", cols, 1);
    expect(sql).toContain("((x.meta) #> $1::text[])");
    expect(params).toEqual([["topic", "name"]]);
  });

  it("treats prototype names as ordinary fields", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(compileFilter(`${name} is null`, cols, 1).params).toEqual([[name]]);
    }
  });
});
