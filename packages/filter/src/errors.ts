import { DomainError } from "@argus/platform";

/**
 * A filter the language rejects. It is an "invalid-request" DomainError, so callers answer
 * 400 without catching it; `position` is 1-based (the length plus one means "at the end").
 */
export class FilterError extends DomainError {
  readonly position: number;
  constructor(detail: string, position: number) {
    super("invalid-request", detail);
    this.name = "FilterError";
    this.position = position;
  }
}

/** The usual detail: `filter: <what> at position <n>[, found <token>]`. */
export function filterError(what: string, position: number, found?: string): FilterError {
  return new FilterError(
    `filter: ${what} at position ${position}${found ? `, found ${found}` : ""}`,
    position,
  );
}
