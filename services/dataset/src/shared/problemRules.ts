import { DomainError } from "@argus/platform";

export const invalid = (detail: string) => new DomainError("invalid-request", detail);
export const unprocessable = (detail: string) => new DomainError("validation-error", detail);
