import type { ApiResponse } from "../http/handler.ts";

/**
 * One page of a list operation: the items under the list's own `key`, and the service's position
 * after the last one (none: the last page, or an empty list for a filter that matches nothing).
 */
export function listPage(
  key: string,
  items: readonly unknown[],
  page?: { nextAfter: string },
): ApiResponse {
  return { status: 200, body: { [key]: items }, nextAfter: page?.nextAfter ?? "" };
}
