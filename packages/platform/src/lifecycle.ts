import { DomainError } from "./errors.ts";

/**
 * Where an aggregate is in its life: not created yet, live (with what decisions need), or
 * deleted. Created once, changed while live, deleted once: anything else is a 404 (or a 409
 * for a second create), never a second Deleted or an Updated after Deleted.
 */
export type Lifecycle<Live extends object> =
  { status: "none" | "deleted" } | ({ status: "live" } & Live);

export type LiveOf<S> = Extract<S, { status: "live" }>;

/** A create needs an aggregate that was never created (ids are fresh, so this is a conflict). */
export function requireNew(state: { status: string }, label: string): void {
  if (state.status !== "none")
    throw new DomainError("resource-conflict", `${label} already exists`);
}

/** Any other command needs a live aggregate: a missing or deleted one is not found. */
export function requireLive<S extends { status: string }>(
  state: S,
  label: string,
): asserts state is LiveOf<S> {
  if (state.status !== "live") throw new DomainError("resource-not-found", `${label} not found`);
}

/** The exhaustive end of a decider's switch. */
export function unreachable(value: never): never {
  throw new Error(`unknown command or event ${JSON.stringify(value)}`);
}
