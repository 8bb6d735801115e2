import { textLength } from "@argus/contracts";
import { DomainError } from "@argus/platform";

const NAME_MAX = 255;
export const DESCRIPTION_MAX = 1000;

export const invalid = (detail: string) => new DomainError("invalid-request", detail);
export const unprocessable = (detail: string) => new DomainError("unprocessable-entity", detail);

/** Lengths count characters (code points), as JSON Schema's maxLength does. */
export function requireCatalogName(name: string, max = NAME_MAX): void {
  if (name.trim().length === 0) throw invalid("name must not be empty");
  if (textLength(name) > max) throw invalid(`name must be at most ${max} characters`);
}

export function requireMaxLength(field: string, value: string | null, max: number): void {
  if (value !== null && textLength(value) > max)
    throw invalid(`${field} must be at most ${max} characters`);
}
