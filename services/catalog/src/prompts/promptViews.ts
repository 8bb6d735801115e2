import type { Pool } from "pg";
import type { CallContext, ResourceAccess } from "@argus/platform";
import type { PromptVersion, PromptWithVersion } from "@argus/proto/catalog/v1/prompts";
import { ACCESS } from "../shared/access.ts";
import {
  findPrompt,
  findPromptVersion,
  toPrompt,
  toPromptVersion,
  type PromptRow,
  type PromptVersionRow,
} from "./promptRows.ts";
import { authorized, isUuid, type Spaces } from "@argus/spaces";

/** Prompts and versions as the caller may read them (404 otherwise). */
export function promptViews(pool: Pool, spaces: Spaces) {
  const prompt = async (ctx: CallContext, id: string): Promise<PromptRow> =>
    authorized(spaces, ctx, await findPrompt(pool, id), ACCESS.prompt);

  const versionWhere = async (
    ctx: CallContext,
    where: string,
    values: string[],
    access: ResourceAccess = ACCESS.promptVersion,
  ): Promise<PromptVersionRow> =>
    authorized(spaces, ctx, await findPromptVersion(pool, where, values), access);

  const version = async (ctx: CallContext, id: string): Promise<PromptVersionRow> => {
    const row = isUuid(id) ? await findPromptVersion(pool, "v.id = $1", [id]) : undefined;
    return authorized(spaces, ctx, row, ACCESS.promptVersion);
  };

  return {
    prompt,
    version,
    versionWhere,
    latest: (ctx: CallContext, promptId: string) =>
      versionWhere(ctx, "v.prompt_id = $1 order by v.id desc", [promptId]),
    labelled: (ctx: CallContext, promptId: string, label: string) =>
      versionWhere(
        ctx,
        "v.id = (select version_id from prompt_labels where prompt_id = $1 and label = $2)",
        [promptId, label],
        ACCESS.promptLabel,
      ),
    present: async (ctx: CallContext, id: string): Promise<PromptVersion> =>
      toPromptVersion(await version(ctx, id)),
    withVersion: (p: PromptRow, v: PromptVersionRow): PromptWithVersion => ({
      prompt: toPrompt(p),
      version: toPromptVersion(v),
    }),
  };
}
