import { describe, expect, it } from "vitest";
import { PREPARED_STATEMENTS_MAX, preparedName } from "../src/schema/tracedQuery.ts";

describe("preparedName", () => {
  it("names a text by its hash: the same text one name, another text another", () => {
    const a = preparedName("select id from t where id = $1");
    expect(a).toMatch(/^argus_[A-Za-z0-9_-]{24}$/);
    expect(preparedName("select id from t where id = $1")).toBe(a);
    expect(preparedName("select id from t where id = $2")).not.toBe(a);
  });

  it.each([
    "select * from t where id = $1",
    "select t.* from t where id = $1",
    "select x.*, y.a from x join y on true where x.id = $1",
    "insert into t (a) values ($1) returning *",
    "select *\n  from t where id = $1",
    "select * from s.t where id = $1",
    "select * from t, unnest($1::int[]) as u(n)",
  ])("leaves a * projection unnamed: %s", (text) => {
    expect(preparedName(text)).toBeUndefined();
  });

  it.each([
    "select count(*) from t where a = $1",
    "select a * b as c from t where id = $1",
    "insert into t (a) values ($1) returning id",
    "with x as (select * from unnest($1::int[], $2::text[]) as x(n, s)) select n from x",
    "with x as materialized (\n select * from jsonb_to_recordset($1::jsonb) as x(id uuid)) select id from x",
    "select n from (select * from unnest($1::int[])) u(n)",
  ])("names a statement whose row type a new column cannot change: %s", (text) => {
    expect(preparedName(text)).toMatch(/^argus_/);
  });

  it(`prepares at most ${PREPARED_STATEMENTS_MAX} texts; later ones run unnamed, earlier ones keep their name`, () => {
    const first = preparedName("select 1 where $1::int = 0");
    // The texts named above count too: fill up to the bound exactly.
    const named: (string | undefined)[] = [];
    for (let i = 0; named.length === 0 || named.at(-1) !== undefined; i++)
      named.push(preparedName(`select ${i} where $1::int = 0`));
    const lastNamed = named.length - 2;
    expect(named[lastNamed]).toMatch(/^argus_/);
    expect(preparedName(`select ${lastNamed + 1} where $1::int = 0`)).toBeUndefined();
    expect(preparedName(`select ${lastNamed} where $1::int = 0`)).toBe(named[lastNamed]);
    expect(preparedName("select 1 where $1::int = 0")).toBe(first);
    // Every text seen before the bound, star projections included, took one place.
    expect(lastNamed + 1).toBeLessThanOrEqual(PREPARED_STATEMENTS_MAX);
    expect(lastNamed + 1).toBeGreaterThan(PREPARED_STATEMENTS_MAX - 20);
  });
});
