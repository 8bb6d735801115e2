import { DomainError } from "@argus/platform";

/** Lengths count characters (code points), as JSON Schema's maxLength does. */
const length = (s: string): number => [...s].length;

export const NAME_MAX = 255;
export const DESCRIPTION_MAX = 1000;

export function requireCatalogName(name: string, max = NAME_MAX): void {
  if (name.trim().length === 0) throw new DomainError("invalid-request", "name must not be empty");
  if (length(name) > max)
    throw new DomainError("invalid-request", `name must be at most ${max} characters`);
}

export function requireMaxLength(field: string, value: string | null, max: number): void {
  if (value !== null && length(value) > max)
    throw new DomainError("invalid-request", `${field} must be at most ${max} characters`);
}
