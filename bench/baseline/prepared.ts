// Statements the baselines and floors run prepared, as the stack runs its own.
import type { QueryConfig } from "pg";

/**
 * `text` as a named statement: Postgres parses it once per connection and, once its plan turns
 * generic, plans it no more. The stack's statements are prepared (`tracedQuery`); a baseline's
 * unnamed statement was parsed and planned on every call, a cost only the baseline's side paid.
 */
export const prepared =
  (name: string, text: string) =>
  (values: unknown[]): QueryConfig => ({ name: `bench_${name}`, text, values });
