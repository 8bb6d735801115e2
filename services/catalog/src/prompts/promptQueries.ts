import { tracedQuery } from "@argus/eventstore";
import { DomainError, fetchSize, pageOf, type CallContext } from "@argus/platform";
import type {
  GetPromptLabelRequest,
  GetPromptRequest,
  GetPromptVersionRequest,
  ListPromptVersionsRequest,
  ListPromptVersionsResponse,
  ListPromptsRequest,
  ListPromptsResponse,
  PromptVersion,
  PromptWithVersion,
} from "@argus/proto/catalog/v1/prompts";
import {
  PROMPT_COLUMNS,
  VERSION_SELECT,
  toPrompt,
  toPromptVersion,
  type PromptRow,
  type PromptVersionRow,
} from "./promptRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { listInSpaces } from "../shared/listInSpaces.ts";
import { promptViews } from "./promptViews.ts";

export function promptQueries(deps: CatalogDeps) {
  const { pool } = deps;
  const views = promptViews(pool, deps.spaces);
  return {
    async listPrompts(req: ListPromptsRequest, ctx: CallContext): Promise<ListPromptsResponse> {
      const list = {
        table: "prompts",
        columns: PROMPT_COLUMNS,
        read: "PROMPT_READ",
        order: "updated",
      } as const;
      const { items, nextAfter } = await listInSpaces<PromptRow>(deps, ctx, req, list);
      return { prompts: items.map(toPrompt), page: { nextAfter } };
    },

    async getPrompt(req: GetPromptRequest, ctx: CallContext): Promise<PromptWithVersion> {
      if (req.versionId && req.label)
        throw new DomainError("invalid-request", "version_id and label are mutually exclusive");
      const p = await views.prompt(ctx, req.id);
      const v = req.versionId
        ? await views.versionWhere(ctx, "v.id = $1 and v.prompt_id = $2", [req.versionId, p.id])
        : req.label
          ? await views.labelled(ctx, p.id, req.label)
          : await views.latest(ctx, p.id);
      return views.withVersion(p, v);
    },

    async listPromptVersions(
      req: ListPromptVersionsRequest,
      ctx: CallContext,
    ): Promise<ListPromptVersionsResponse> {
      const p = await views.prompt(ctx, req.promptId);
      const res = await tracedQuery<PromptVersionRow>(
        pool,
        "list prompt versions",
        `${VERSION_SELECT} where v.prompt_id = $1 and ($2::uuid is null or v.id < $2)
          order by v.id desc limit $3`,
        [p.id, req.page?.after || null, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { versions: items.map(toPromptVersion), page: { nextAfter } };
    },

    getPromptVersion: (req: GetPromptVersionRequest, ctx: CallContext): Promise<PromptVersion> =>
      views.present(ctx, req.id),

    async getPromptLabel(req: GetPromptLabelRequest, ctx: CallContext): Promise<PromptVersion> {
      const p = await views.prompt(ctx, req.promptId);
      return toPromptVersion(await views.labelled(ctx, p.id, req.label));
    },
  };
}
