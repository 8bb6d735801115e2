import { DomainError } from "@argus/platform";

/** Where an aggregate is in its life: never created, live (with what decisions need), deleted. */
export type Lifecycle<Live extends object> =
  { status: "none" | "deleted" } | ({ status: "live" } & Live);

export const invalid = (detail: string) => new DomainError("invalid-request", detail);
export const unprocessable = (detail: string) => new DomainError("validation-error", detail);
export const notFound = (label: string) =>
  new DomainError("resource-not-found", `${label} not found`);

export function unreachable(value: never): never {
  throw new Error(`unknown command or event ${JSON.stringify(value)}`);
}
