import { LIMITS } from "@argus/contracts";
import { clampLimit } from "@argus/platform";
import type { PageRequest } from "@argus/proto/common/v1";

/**
 * A page stops early once its examples' text passes this, so an answer of 500 large examples
 * stays well inside one gRPC message; the cursor then resumes after the last one sent.
 */
const PAGE_BYTES = 8 * 1024 * 1024;

/** The rows of one page within the byte budget, and where the next page starts. */
export function cutPage<T extends { id: string }>(
  rows: readonly T[],
  page: PageRequest | undefined,
  size: (row: T) => number,
  budget = PAGE_BYTES,
): { items: T[]; nextAfter: string } {
  const limit = clampLimit(page?.limit, LIMITS.EXAMPLES_PAGE_MAX);
  const items: T[] = [];
  let used = 0;
  for (const row of rows.slice(0, limit)) {
    used += size(row);
    if (items.length > 0 && used > budget) break;
    items.push(row);
  }
  const more = rows.length > items.length;
  return { items, nextAfter: more ? items[items.length - 1]!.id : "" };
}
