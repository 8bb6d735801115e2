import { uuidv7, type CallContext } from "@argus/platform";
import type {
  CreatePromptRequest,
  CreatePromptVersionRequest,
  DeletePromptRequest,
  DeletePromptResponse,
  Prompt,
  PromptVersion,
  PromptWithVersion,
  UpdatePromptRequest,
} from "@argus/proto/catalog/v1/prompts";
import { creatorUserId } from "@argus/spaces";
import { ACCESS } from "../shared/access.ts";
import { promptDecider } from "./promptDecider.ts";
import { findPrompt, toPrompt } from "./promptRows.ts";
import { promptViews } from "./promptViews.ts";
import type { CatalogDeps } from "../deps.ts";
import { promptContentOf } from "./promptRequests.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

export const promptKind = {
  aggregate: "prompt",
  decider: promptDecider,
  access: ACCESS.prompt,
  find: findPrompt,
} as const;

/** Prompts and their versions and labels: every change is decided on the prompt's stream. */
export function promptCommands(deps: CatalogDeps) {
  const prompts = resourceCommands(deps, promptKind);
  const views = promptViews(deps.pool, deps.spaces);

  return {
    async createPrompt(req: CreatePromptRequest, ctx: CallContext): Promise<PromptWithVersion> {
      const versionId = uuidv7();
      const { id } = await prompts.create(
        ctx,
        req.spaceId,
        "PROMPT_CREATE",
        (id) => ({
          type: "CreatePrompt",
          id,
          versionId,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          description: req.description ?? null,
          version: promptContentOf(req.version),
          userId: creatorUserId(ctx),
          now: deps.clock.now(),
        }),
        {
          prompts_name_per_space: `a prompt named ${JSON.stringify(req.name)} already exists in this space`,
        },
      );
      return views.withVersion(await views.prompt(ctx, id), await views.version(ctx, versionId));
    },

    async updatePrompt(req: UpdatePromptRequest, ctx: CallContext): Promise<Prompt> {
      const row = req.setDescription
        ? await prompts.change(ctx, req.id, "PROMPT_UPDATE", {
            type: "UpdatePrompt",
            description: req.description ?? null,
            now: deps.clock.now(),
          })
        : await prompts.load(ctx, req.id, "PROMPT_UPDATE");
      return toPrompt(await views.prompt(ctx, row.id));
    },

    async deletePrompt(req: DeletePromptRequest, ctx: CallContext): Promise<DeletePromptResponse> {
      await prompts.change(ctx, req.id, "PROMPT_DELETE", {
        type: "DeletePrompt",
        now: deps.clock.now(),
      });
      return {};
    },

    async createPromptVersion(
      req: CreatePromptVersionRequest,
      ctx: CallContext,
    ): Promise<PromptVersion> {
      const versionId = uuidv7();
      await prompts.change(ctx, req.promptId, "PROMPT_UPDATE", {
        type: "CreatePromptVersion",
        versionId,
        version: promptContentOf(req.content),
        userId: creatorUserId(ctx),
        now: deps.clock.now(),
      });
      return views.present(ctx, versionId);
    },
  };
}
