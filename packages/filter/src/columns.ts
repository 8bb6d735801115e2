import type { FilterColumns } from "./compile.ts";

/**
 * Fields of a jsonb object column: `a.b.c` is `column #> '{a,b,c}'`, the path always a
 * parameter. `extra` maps a first segment to a jsonb SQL expression of its own (which
 * shadows the user field of that name); the remaining segments index into it.
 * `column` and the `extra` values are SQL written by the caller, never user input.
 */
export function jsonObjectColumns(
  column: string,
  extra: Readonly<Record<string, string>> = {},
): FilterColumns {
  // A Map, so a field named "constructor" or "__proto__" is data, not a prototype lookup.
  const named = new Map(Object.entries(extra));
  return {
    resolve(path, bind) {
      const [head, ...rest] = path;
      const base = head === undefined ? undefined : named.get(head);
      if (base === undefined) return { sql: `(${column}) #> ${bind(path)}` };
      return { sql: rest.length === 0 ? base : `(${base}) #> ${bind(rest)}` };
    },
  };
}
