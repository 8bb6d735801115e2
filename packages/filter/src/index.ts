export { FilterError } from "./errors.ts";
export { FILTER_LIMITS, parseFilter } from "./parser.ts";
export type { FieldRef, FilterNode, Literal } from "./parser.ts";
export type { ComparisonOperator } from "./lexer.ts";
export { compileFilter } from "./compile.ts";
export type { BindParam, CompiledFilter, FilterColumns, FilterParam } from "./compile.ts";
export { jsonObjectColumns } from "./columns.ts";
export {
  QUERY_EXPRESSION_MAX,
  foldQueryExpression,
  parseQueryExpression,
} from "./queryExpression.ts";
export type { QueryExpression } from "./queryExpression.ts";
