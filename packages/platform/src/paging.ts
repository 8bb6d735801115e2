import type { PageRequest } from "@argus/proto/common/v1";

/** The page size to fetch: one more than asked, so the last page is known without a count. */
export function fetchSize(page: PageRequest | undefined): number {
  return clampLimit(page?.limit) + 1;
}

export function clampLimit(limit: number | undefined): number {
  return Math.min(Math.max(limit || 50, 1), 100);
}

/** Cuts an over-fetched keyset result to the page and says where the next one starts. */
export function pageOf<T>(
  rows: readonly T[],
  page: PageRequest | undefined,
  keyOf: (row: T) => string,
): { items: T[]; nextAfter: string } {
  const limit = clampLimit(page?.limit);
  const items = rows.slice(0, limit);
  return { items, nextAfter: rows.length > limit ? keyOf(items[items.length - 1]!) : "" };
}
