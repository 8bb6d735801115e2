import { LIMITS } from "@argus/contracts";
import { compileFilter } from "@argus/filter";
import { clampLimit, type CallContext, notFound, publicIdSql } from "@argus/platform";
import type {
  ListExamplesRequest,
  ListExamplesResponse,
  SearchExamplesRequest,
} from "@argus/proto/dataset/v1/dataset";
import type { PageRequest } from "@argus/proto/common/v1";
import { findVersion, loadDataset } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { cutPage } from "../shared/cutPage.ts";
import { fieldColumns } from "../shared/filterColumns.ts";
import { examplePage, toExample } from "./exampleRows.ts";

/**
 * The columns a search may name: `id` (the public example id, as the gateway encodes it) and
 * any user-defined field by its path in the example (`input`, `metadata.topic`).
 */
export const exampleColumns = fieldColumns("x.fields", {
  // encodeId("DatasetExample", id): standard base64 on one line (51 bytes → 68 characters).
  id: `to_jsonb(${publicIdSql("DatasetExample", "x.id")})`,
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
