import { createTestDatabase, type TestDatabase } from "@argus/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter, FILTER_LIMITS, jsonObjectColumns } from "../src/index.ts";

/** Varied documents: every JSON type, nesting, arrays, missing keys, non-object roots, SQL NULL. */
const DOCS: Record<number, unknown> = {
  1: {
    s: "apple",
    n: 1,
    b: true,
    tags: ["red", "green"],
    nested: { k: "v", deep: { x: 1 } },
    annotation: { Correctness: { label: "Correct" } },
  },
  2: { s: "Banana", n: 2.5, b: false, tags: [], nested: { k: "w" } },
  3: { s: "cherry pie", n: -3, b: null, tags: ["blue", ["red"]], nested: "flat" },
  4: { s: "50% off", n: "10", b: "true", tags: "red" },
  5: { s: null, n: null },
  6: {},
  7: {
    s: "it's",
    n: 1e2,
    "odd key": "spaced",
    "a.b": "dotted",
    'we"ird': "q",
    arr: [{ c: 1 }, { c: 2 }],
  },
  8: { s: "under_score", n: 100, big: "BIG" },
  9: "scalar string",
  10: [1, 2, 3],
  11: null,
  12: { s: "apple", n: 1.0, annotation: { Correctness: { label: "Incorrect" } } },
};
const ALL = Object.keys(DOCS).map(Number);

let db: TestDatabase;
let pool: pg.Pool;
const columns = jsonObjectColumns("t.doc", { id: "to_jsonb(t.id)" });

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on("error", () => {});
  await pool.query("create table docs (id int primary key, doc jsonb)");
  for (const [id, doc] of Object.entries(DOCS))
    await pool.query("insert into docs values ($1, $2::jsonb)", [id, JSON.stringify(doc)]);
  // Exact numerics JSON.stringify cannot write.
  await pool.query(`update docs set doc = doc || '{"big": 12345678901234567890.5}' where id = 8`);
  await pool.query(`update docs set doc = doc || '{"n": 1.0}' where id = 12`);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** The ids of the rows a filter selects, with its parameters numbered after one of ours. */
async function ids(filter: string): Promise<number[]> {
  const { sql, params } = compileFilter(filter, columns, 2);
  const { rows } = await pool.query<{ id: number }>(
    `select t.id from docs t where t.id > $1 and (${sql}) order by t.id`,
    [0, ...params],
  );
  return rows.map((r) => r.id);
}

describe("filters select exactly the expected rows", () => {
  it.each<[string, number[]]>([
    // The documented examples.
    ["s = 'apple'", [1, 12]],
    ["annotation.Correctness.label = 'Correct'", [1]],
    ["s = 'apple' AND annotation.Correctness.label = 'Correct'", [1]],
    // Equality is by JSON value and type: 1 = 1.0, but 10 is not "10" and true is not "true".
    ["n = 1", [1, 12]],
    ["n == 1.00", [1, 12]],
    ["n = 100", [7, 8]],
    ["n = '10'", [4]],
    ["n = 10", []],
    ["b = true", [1]],
    ["b = 'true'", [4]],
    ["b = false", [2]],
    ["big = 12345678901234567890.5", [8]],
    ["big = 12345678901234567890.4", []],
    ["big = 'BIG'", []],
    ["nested.k = 'v'", [1]],
    ["nested.deep.x = 1", [1]],
    ["nested = 'flat'", [3]],
    // A missing key or JSON null is not unequal to anything.
    ["n != 1", [2, 3, 4, 7, 8]],
    ["n <> 1", [2, 3, 4, 7, 8]],
    ["b != true", [2, 4]],
    // NOT is the plain complement.
    ["not n = 1", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
    ["not (n != 1)", [1, 5, 6, 9, 10, 11, 12]],
    // Orders compare numbers with numbers, strings with strings; nothing else matches.
    ["n > 0", [1, 2, 7, 8, 12]],
    ["n >= 2.5", [2, 7, 8]],
    ["n < 0", [3]],
    ["n <= -3", [3]],
    ["n > -1e10", [1, 2, 3, 7, 8, 12]],
    ["s >= 'cherry'", [3, 7, 8]],
    ["b > false", [1]],
    // IN / NOT IN.
    ["s in ('apple', 'Banana', 1)", [1, 2, 12]],
    ["n in (1, 2.5)", [1, 2, 12]],
    ["n not in (1, 2.5)", [3, 4, 7, 8]],
    ["n in ('10', 100)", [4, 7, 8]],
    // LIKE family: strings only; backslash escapes % and _.
    ["s like 'a%'", [1, 12]],
    ["s like 'A%'", []],
    ["s ilike 'A%'", [1, 12]],
    ["s ilike 'b%'", [2]],
    ["s like '_pple'", [1, 12]],
    [String.raw`s like '50\% off'`, [4]],
    [String.raw`s like '%\_%'`, [8]],
    ["s like '%''%'", [7]],
    ["s not like 'a%'", [2, 3, 4, 7, 8]],
    ["s not ilike '%E%'", [2, 4, 7]],
    ["n like '1%'", [4]],
    // CONTAINS: case-sensitive substring, or an element of an array.
    ["s contains 'an'", [2]],
    ["s contains 'AN'", []],
    ["s contains '%'", [4]],
    ["tags contains 'red'", [1, 4]],
    ["tags not contains 'red'", [2, 3]],
    ["s not contains 'p'", [2, 4, 7, 8]],
    // IS NULL: a missing key, JSON null, or no document at all.
    ["s is null", [5, 6, 9, 10, 11]],
    ["s = null", [5, 6, 9, 10, 11]],
    ["s is not null", [1, 2, 3, 4, 7, 8, 12]],
    ["b is null", [3, 5, 6, 7, 8, 9, 10, 11, 12]],
    ["nested.k is null", [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
    // Quoted names are one key; numeric segments index arrays.
    ["\"odd key\" = 'spaced'", [7]],
    ["`a.b` = 'dotted'", [7]],
    ["a.b = 'dotted'", []],
    ['"we""ird" = \'q\'', [7]],
    ["arr.0.c = 1", [7]],
    ["arr.1.c = 2", [7]],
    ["`0` = 1", [10]],
    ["tags.1 = 'green'", [1]],
    // An extra column.
    ["id in (3, 5)", [3, 5]],
    ["id > 10", [11, 12]],
    // Precedence: AND binds tighter than OR, NOT tighter than AND.
    ["n = 2.5 or s = 'apple' and b = true", [1, 2]],
    ["(n = 2.5 or s = 'apple') and b = true", [1]],
    ["not s = 'apple' and n = 1", []],
    ["not (s = 'apple' and n = 1)", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
    // Injection attempts are plain values.
    ["s = 'a''; drop table docs; --'", []],
    ['"x\'); drop table docs; --" is not null', []],
  ])("%s", async (filter, expected) => {
    expect(await ids(filter)).toEqual(expected);
  });

  it("still has its table after the injection attempts", async () => {
    expect((await pool.query("select count(*)::int as n from docs")).rows[0]).toEqual({ n: 12 });
  });
});

/** A deterministic PRNG, so a failure here reproduces. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const FIELDS = [
  "s",
  "n",
  "b",
  "tags",
  "nested",
  "nested.k",
  "nested.deep",
  "big",
  "missing",
  "arr.0",
  "`0`",
  "id",
];
const LITERALS = [
  "'apple'",
  "''",
  "'%'",
  "1",
  "-2.5",
  "1e300",
  "0.000001",
  "true",
  "false",
  "'1'",
  "'\\'",
];
const OPERATORS = ["=", "!=", "<", "<=", ">", ">="];

function predicates(): string[] {
  const out: string[] = [];
  for (const f of FIELDS) {
    for (const lit of LITERALS) {
      for (const op of OPERATORS) out.push(`${f} ${op} ${lit}`);
      out.push(`${f} in (${lit}, 'x', 2)`, `${f} not in (${lit})`);
    }
    for (const s of ["'a%'", "'%\\\\'", "'_'", "''", "'%''%'"])
      out.push(`${f} like ${s}`, `${f} not like ${s}`, `${f} ilike ${s}`, `${f} not ilike ${s}`);
    for (const s of ["'a'", "''", "'red'", "'%'"])
      out.push(`${f} contains ${s}`, `${f} not contains ${s}`);
    out.push(`${f} is null`, `${f} is not null`);
  }
  return out;
}

describe("no filter raises a SQL error on any row, and NOT is an exact complement", () => {
  const all = predicates();

  it(`runs ${all.length} predicates (every field × operator × literal type)`, async () => {
    for (const p of all) {
      const yes = await ids(p);
      const no = await ids(`not (${p})`);
      expect(
        [...yes, ...no].sort((a, b) => a - b),
        p,
      ).toEqual(ALL);
    }
  });

  it("runs 300 random combinations", async () => {
    const next = rng(42);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const build = (depth: number): string => {
      const r = next();
      if (depth > 3 || r < 0.4) return pick(all);
      if (r < 0.55) return `not (${build(depth + 1)})`;
      return `(${build(depth + 1)} ${pick(["and", "or", "AND", "Or"])} ${build(depth + 1)})`;
    };
    for (let i = 0; i < 300; i++) {
      const f = build(0);
      const yes = await ids(f);
      const no = await ids(`not ${f}`);
      expect(yes.length + no.length, f).toBe(ALL.length);
    }
  });
});

describe("filters at the limits run in Postgres", () => {
  it("50 levels of nesting", async () => {
    expect(await ids(`${"not (".repeat(24)}((n = 1))${")".repeat(24)}`)).toEqual([1, 12]);
  });

  it(`an IN list of ${FILTER_LIMITS.maxInList} trace ids fits in ${FILTER_LIMITS.maxLength} characters`, async () => {
    const ids32 = Array.from(
      { length: FILTER_LIMITS.maxInList },
      (_, i) => `'${i.toString(16).padStart(32, "f")}'`,
    );
    const f = `s in (${ids32.join(", ")}) or s = 'Banana'`;
    expect(f.length).toBeLessThanOrEqual(FILTER_LIMITS.maxLength);
    expect(await ids(f)).toEqual([2]);
  });

  it(`an IN list of ${FILTER_LIMITS.maxInList} values`, async () => {
    const values = Array.from({ length: 1000 }, (_, i) => `'v${i}'`);
    values[500] = "'Banana'";
    expect(await ids(`s in (${values.join(",")})`)).toEqual([2]);
  });

  it(`a ${FILTER_LIMITS.maxLength}-character chain of ORs`, async () => {
    let f = "n = 2.5";
    for (let i = 0; f.length < FILTER_LIMITS.maxLength - 20; i++) f += ` or s = 'v${i}'`;
    expect(f.length).toBeLessThanOrEqual(FILTER_LIMITS.maxLength);
    expect(await ids(f)).toEqual([2]);
  });

  it("numbers at the edge of the range", async () => {
    expect(await ids("n < 1.7e308 and n > -1.7e308 and n != 1e-300")).toEqual([1, 2, 3, 7, 8, 12]);
    expect(await ids("n = 0e1000 or n = 0e-1000 or n > 4.9e-324 and n < 1e-320")).toEqual([]);
    expect(await ids(`n < 1${"0".repeat(308)}.${"0".repeat(5000)}1`)).toEqual([1, 2, 3, 7, 8, 12]);
  });

  it("strings with every awkward character", async () => {
    const nasty = "a'b\"c\\d{e}f,g NULL ü 🙂 $1 %_";
    await pool.query(
      `insert into docs values (100, jsonb_build_object('s', $1::text, $1::text, 1))`,
      [nasty],
    );
    try {
      const q = `'${nasty.replace(/'/g, "''")}'`;
      expect(await ids(`s = ${q}`)).toEqual([100]);
      expect(await ids(`s contains ${q}`)).toEqual([100]);
      expect(await ids(`"${nasty.replace(/"/g, '""')}" = 1`)).toEqual([100]);
    } finally {
      await pool.query("delete from docs where id = 100");
    }
  });
});
