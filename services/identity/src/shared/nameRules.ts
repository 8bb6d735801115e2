import { DomainError } from "@argus/platform";

/** Lengths count characters (code points), as JSON Schema's maxLength does. */
const length = (s: string): number => [...s].length;

export function requireName(name: string, max: number): void {
  if (name.trim().length === 0) throw new DomainError("invalid-request", "name must not be empty");
  if (length(name) > max)
    throw new DomainError("invalid-request", `name must be at most ${max} characters`);
}

export function requireDescription(description: string, max: number): void {
  if (length(description) > max)
    throw new DomainError("invalid-request", `description must be at most ${max} characters`);
}
