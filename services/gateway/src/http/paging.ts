import { DomainError } from "@argus/platform";
import { cursorBinding, signCursor, verifyCursor } from "./cursor.ts";
import type { PageRequest } from "./handler.ts";
import type { CompiledOperation, RawInput } from "../openapi/operations.ts";

export interface Paging {
  page: PageRequest;
  /** The query the handler sees: on paginated operations without `limit` and `cursor`. */
  query: Record<string, unknown>;
  /** Signs the handler's `nextAfter` into a cursor bound to this same query. */
  signNext(after: string): string;
}

const NO_PAGE: PageRequest = { limit: 0, after: "" };
const unpaginated = (): never => {
  throw new Error("an operation without a cursor parameter has no next page");
};

/** Verifies the cursor of a validated request; a tampered or foreign one is a 400. */
export function readPaging(op: CompiledOperation, input: RawInput, secret: string): Paging {
  if (!op.paginated) return { page: NO_PAGE, query: input.query, signNext: unpaginated };
  const binding = cursorBinding(op.operationId, input.params, input.query);
  const signNext = (after: string): string => signCursor(secret, binding, after);
  const { limit, cursor, ...filters } = input.query;
  const after = typeof cursor === "string" ? verifyCursor(secret, binding, cursor) : "";
  if (after === null) {
    throw new DomainError(
      "invalid-request",
      "the cursor is invalid or belongs to a different query",
    );
  }
  return { page: { limit: Number(limit), after }, query: filters, signNext };
}
