import { DomainError } from "@argus/platform";

/**
 * Prompts and evaluators list most recently updated first (ax-client list_prompts,
 * list_evaluators): the keyset is (updated_at, id), carried in the cursor as "<iso>|<uuid>".
 */
export function updatedKey(row: { updated_at: Date; id: string }): string {
  return `${row.updated_at.toISOString()}|${row.id}`;
}

export function updatedAfter(after: string | undefined): { at: string | null; id: string | null } {
  if (!after) return { at: null, id: null };
  const [at, id] = after.split("|");
  if (!at || !id || Number.isNaN(Date.parse(at)))
    throw new DomainError("invalid-request", "the cursor is not valid for this list");
  return { at, id };
}
