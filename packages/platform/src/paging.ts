import type { PageRequest } from "@argus/proto/common/v1";
import { isUuidAnyCase } from "./ids.ts";

/** The page size to fetch: one more than asked, so the last page is known without a count. */
export function fetchSize(page: PageRequest | undefined, max = PAGE_MAX): number {
  return clampLimit(page?.limit, max) + 1;
}

/** The largest page of most lists (the OpenAPI LimitQueryParam); some lists allow more. */
const PAGE_MAX = 100;

export function clampLimit(limit: number | undefined, max = PAGE_MAX): number {
  return Math.min(Math.max(limit || 50, 1), max);
}

/** Cuts an over-fetched keyset result to the page and says where the next one starts. */
export function pageOf<T>(
  rows: readonly T[],
  page: PageRequest | undefined,
  keyOf: (row: T) => string,
  max = PAGE_MAX,
): { items: T[]; nextAfter: string } {
  const limit = clampLimit(page?.limit, max);
  const items = rows.slice(0, limit);
  return { items, nextAfter: rows.length > limit ? keyOf(items[items.length - 1]!) : "" };
}

/** The keyset of a "newest first" list: created_at then id, both descending, in one cursor. */
export const newestKeyOf = (r: { created_at: Date; id: string }): string =>
  `${r.created_at.toISOString()}|${r.id}`;

/** The position a `newestKeyOf` cursor names; [null, null] (the first page) for anything else. */
export function newestAfter(after: string | undefined): [string | null, string | null] {
  if (!after) return [null, null];
  const [at, id] = after.split("|");
  return at && id && isUuidAnyCase(id) && !Number.isNaN(Date.parse(at)) ? [at, id] : [null, null];
}
