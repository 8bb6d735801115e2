import { tracedQuery } from "@argus/eventstore";
import { fetchSize, pageOf, type CallContext, notFound } from "@argus/platform";
import { confirmListed, listableSpaces } from "@argus/spaces";
import type {
  Dataset,
  GetDatasetRequest,
  GetResourceRefRequest,
  ListDatasetsRequest,
  ListDatasetsResponse,
  ResourceRef,
} from "@argus/proto/dataset/v1/dataset";
import type { DatasetDeps } from "../deps.ts";
import { loadExperiment } from "../experiments/experimentRows.ts";
import {
  DATASET_COLUMNS,
  loadDataset,
  toDataset,
  versionsOf,
  type DatasetRow,
} from "./datasetRows.ts";

export function datasetQueries(deps: DatasetDeps) {
  const { pool, spaces } = deps;
  return {
    async getDataset(req: GetDatasetRequest, ctx: CallContext): Promise<Dataset> {
      const row = await loadDataset(deps, ctx, req.id);
      return toDataset(row, await versionsOf(pool, row.id));
    },

    async listDatasets(req: ListDatasetsRequest, ctx: CallContext): Promise<ListDatasetsResponse> {
      const p = ctx.principal;
      const spacesSql = await listableSpaces(spaces, ctx, req, "DATASET_READ", "d.space_id", 5);
      const res = await tracedQuery<DatasetRow>(
        pool,
        "list datasets",
        `select ${DATASET_COLUMNS} from datasets d
          where account_id = $1
            and ($2::text is null or strpos(lower(name), lower($2)) > 0)
            and ($3::uuid is null or id < $3)
            and ${spacesSql.sql}
          order by id desc
          limit $4`,
        [
          p.accountId,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          ...spacesSql.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const confirmed = await confirmListed(spaces, ctx, items, "DATASET_READ", (r) => ({
        spaceId: r.space_id,
      }));
      return { datasets: confirmed.map((r) => toDataset(r)), page: { nextAfter } };
    },

    /** The catalog's question before tagging: where the resource is, if the caller may see it. */
    async getResourceRef(req: GetResourceRefRequest, ctx: CallContext): Promise<ResourceRef> {
      const row =
        req.type === "dataset"
          ? await loadDataset(deps, ctx, req.id)
          : req.type === "experiment"
            ? await loadExperiment(deps, ctx, req.id)
            : undefined;
      if (!row) throw notFound(req.type || "resource");
      return { id: row.id, spaceId: row.space_id, accountId: row.account_id };
    },
  };
}
