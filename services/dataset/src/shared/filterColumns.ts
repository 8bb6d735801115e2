import type { FilterColumns } from "@argus/filter";

/**
 * The fields of a jsonb object column as the public filter language names them: `a.b.c` is
 * the field literally named "a.b.c" when the object has one (flattened columns such as
 * `eval.correct.score` or a DataFrame's `metadata.topic`), else the path a → b → c. `extra`
 * maps a whole name to SQL of the caller's own (ids, the run's output), which wins. Every part
 * of a name reaches Postgres as a parameter.
 */
export function fieldColumns(
  column: string,
  extra: Readonly<Record<string, string>> = {},
): FilterColumns {
  const named = new Map(Object.entries(extra));
  return {
    resolve(path, bind) {
      const own = named.get(path.join("."));
      if (own !== undefined) return { sql: own };
      if (path.length === 1) return { sql: `(${column}) -> ${bind(path[0]!)}` };
      return {
        sql: `coalesce((${column}) -> ${bind(path.join("."))}, (${column}) #> ${bind(path)})`,
      };
    },
  };
}
