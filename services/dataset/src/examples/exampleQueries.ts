import { LIMITS } from "@argus/contracts";
import { compileFilter } from "@argus/filter";
import { clampLimit, type CallContext } from "@argus/platform";
import type {
  ListExamplesRequest,
  ListExamplesResponse,
  SearchExamplesRequest,
} from "@argus/proto/dataset/v1/dataset";
import type { PageRequest } from "@argus/proto/common/v1";
import { loadDataset } from "../commands/datasets.ts";
import { notFound } from "../domain/lifecycle.ts";
import { examplePage, toExample } from "../projections/exampleRows.ts";
import { findVersion } from "../projections/rows.ts";
import type { DatasetDeps } from "../service.ts";
import { fieldColumns } from "./filterColumns.ts";

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

/**
 * The columns a search may name: `id` (the public example id, as the gateway encodes it) and
 * any user-defined field by its path in the example (`input`, `metadata.topic`).
 */
export const exampleColumns = fieldColumns("x.fields", {
  // encodeId("DatasetExample", id): standard base64 on one line (51 bytes → 68 characters).
  id: "to_jsonb(encode(convert_to('DatasetExample:' || x.id::text, 'UTF8'), 'base64'))",
});

export function exampleQueries(deps: DatasetDeps) {
  async function list(
    ctx: CallContext,
    req: { datasetId: string; versionId: string; page?: PageRequest | undefined },
    filter?: string,
  ): Promise<ListExamplesResponse> {
    const row = await loadDataset(deps, ctx, req.datasetId, "DATASET_EXAMPLE_READ");
    const version = await findVersion(deps.pool, row.id, req.versionId);
    if (!version) throw notFound("dataset version");
    const compiled = filter ? compileFilter(filter, exampleColumns, 5) : undefined;
    const fetch = clampLimit(req.page?.limit, LIMITS.EXAMPLES_PAGE_MAX) + 1;
    const rows = await examplePage(deps.pool, version, req.page?.after ?? "", fetch, compiled);
    const { items, nextAfter } = cutPage(rows, req.page, (r) => r.fields_json.length);
    return { versionId: version.id, examples: items.map(toExample), page: { nextAfter } };
  }

  return {
    listExamples: (req: ListExamplesRequest, ctx: CallContext) => list(ctx, req),
    searchExamples: (req: SearchExamplesRequest, ctx: CallContext) => list(ctx, req, req.filter),
  };
}
