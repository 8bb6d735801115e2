import type { CallContext } from "@argus/platform";
import type {
  DeletePromptVersionLabelRequest,
  DeletePromptVersionLabelResponse,
  PromptVersion,
  SetPromptVersionLabelsRequest,
} from "@argus/proto/catalog/v1/prompts";
import type { PromptCommand } from "./promptDecider.ts";
import { authorized } from "@argus/spaces";
import { promptViews } from "./promptViews.ts";
import type { CatalogDeps } from "../deps.ts";
import { promptKind } from "./promptCommands.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

/**
 * A version's labels. The request names the version: it is found (and authorized) through the
 * projection, and the labels are decided on its prompt's stream, which knows every label.
 */
export function promptLabelCommands(deps: CatalogDeps) {
  const prompts = resourceCommands(deps, promptKind);
  const views = promptViews(deps.pool, deps.spaces);

  async function onVersion(ctx: CallContext, versionId: string, command: PromptCommand) {
    const v = await authorized(
      deps.spaces,
      ctx,
      await views.version(ctx, versionId),
      promptKind.access,
      "PROMPT_UPDATE",
    );
    await prompts.run(ctx, v.prompt_id, v.space_id, command);
    return v;
  }

  return {
    async setPromptVersionLabels(
      req: SetPromptVersionLabelsRequest,
      ctx: CallContext,
    ): Promise<PromptVersion> {
      const command = { versionId: req.versionId, labels: req.labels, now: deps.clock.now() };
      const v = await onVersion(ctx, req.versionId, { type: "SetPromptVersionLabels", ...command });
      return views.present(ctx, v.id);
    },

    async deletePromptVersionLabel(
      req: DeletePromptVersionLabelRequest,
      ctx: CallContext,
    ): Promise<DeletePromptVersionLabelResponse> {
      const command = { versionId: req.versionId, label: req.label, now: deps.clock.now() };
      await onVersion(ctx, req.versionId, { type: "DeletePromptVersionLabel", ...command });
      return {};
    },
  };
}
