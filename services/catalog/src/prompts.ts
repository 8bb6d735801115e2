import {
  DomainError,
  actorMetadata,
  fetchSize,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreatePromptRequest,
  CreatePromptVersionRequest,
  DeletePromptRequest,
  DeletePromptResponse,
  DeletePromptVersionLabelRequest,
  DeletePromptVersionLabelResponse,
  GetPromptLabelRequest,
  GetPromptRequest,
  GetPromptVersionRequest,
  ListPromptVersionsRequest,
  ListPromptVersionsResponse,
  ListPromptsRequest,
  ListPromptsResponse,
  Prompt,
  PromptVersion,
  PromptWithVersion,
  SetPromptVersionLabelsRequest,
  UpdatePromptRequest,
} from "@argus/proto/catalog/v1/prompts";
import type { Pool } from "pg";
import { commit } from "./commit.ts";
import { updatedAfter, updatedKey } from "./promptsPaging.ts";
import {
  decidePrompt,
  promptStateOf,
  type PromptCommand,
  type PromptEvent,
} from "./domain/prompt.ts";
import {
  PROMPT_COLUMNS,
  VERSION_SELECT,
  contentOf,
  toPrompt,
  toPromptVersion,
  type PromptRow,
  type PromptVersionRow,
} from "./promptsRows.ts";
import {
  actorId,
  listableSpaceIds,
  requireCreatable,
  requirePermission,
  requireReadable,
} from "./spaceAccess.ts";
import type { Spaces } from "./spaces.ts";

type Deps = { pool: Pool; store: EventStore; spaces: Spaces };

export function promptHandlers(deps: Deps) {
  const { pool, store, spaces } = deps;

  async function promptRow(ctx: CallContext, id: string): Promise<PromptRow> {
    const res = await tracedQuery<PromptRow>(
      pool,
      "get prompt",
      `select ${PROMPT_COLUMNS} from prompts where id = $1`,
      [id],
    );
    const row = res.rows[0];
    requireReadable(ctx, row, "PROMPT_READ", "prompt");
    return row;
  }

  async function versionRow(
    ctx: CallContext,
    where: string,
    values: unknown[],
    label = "prompt version",
  ): Promise<PromptVersionRow> {
    const res = await tracedQuery<PromptVersionRow>(
      pool,
      "get prompt version",
      `${VERSION_SELECT} where ${where} limit 1`,
      values,
    );
    const row = res.rows[0];
    requireReadable(ctx, row, "PROMPT_READ", label);
    return row;
  }

  /** Load (fold the stream), decide, commit at the version decided on. */
  async function execute(
    ctx: CallContext,
    promptId: string,
    command: PromptCommand,
  ): Promise<PromptEvent[]> {
    const streamId = `prompt-${promptId}`;
    const history = (await store.readStream(streamId)) as unknown as PromptEvent[];
    const state = promptStateOf(history);
    const events = decidePrompt(command, state);
    if (events.length > 0)
      await commit(store, streamId, history.length, events, {
        ...actorMetadata(ctx),
        space_id: state.spaceId,
      });
    return events;
  }

  /** A prompt the caller may read and must be allowed to change with `permission`. */
  async function changeable(ctx: CallContext, id: string, permission: string): Promise<PromptRow> {
    const row = await promptRow(ctx, id);
    requirePermission(ctx, row.space_id, permission);
    return row;
  }

  const withVersion = (p: PromptRow, v: PromptVersionRow): PromptWithVersion => ({
    prompt: toPrompt(p),
    version: toPromptVersion(v),
  });

  return {
    async createPrompt(req: CreatePromptRequest, ctx: CallContext): Promise<PromptWithVersion> {
      await requireCreatable(spaces, ctx, req.spaceId, "PROMPT_CREATE");
      const id = uuidv7();
      const versionId = uuidv7();
      const events = decidePrompt(
        {
          type: "CreatePrompt",
          id,
          versionId,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          description: req.description ?? null,
          version: contentOf(req.version),
          userId: actorId(ctx),
          now: new Date(),
        },
        promptStateOf([]),
      );
      await commit(
        store,
        `prompt-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), space_id: req.spaceId },
        {
          prompts_name_per_space: `a prompt named ${JSON.stringify(req.name)} already exists in this space`,
        },
      );
      const p = await promptRow(ctx, id);
      return withVersion(p, await versionRow(ctx, "v.id = $1", [versionId]));
    },

    async listPrompts(req: ListPromptsRequest, ctx: CallContext): Promise<ListPromptsResponse> {
      const spaceIds = await listableSpaceIds(
        spaces,
        ctx,
        { spaceId: req.spaceId, spaceName: req.spaceName },
        "PROMPT_READ",
      );
      const res = await tracedQuery<PromptRow>(
        pool,
        "list prompts",
        `select ${PROMPT_COLUMNS} from prompts
          where account_id = $1
            and ($2::uuid[] is null or space_id = any($2::uuid[]))
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::timestamptz is null or (updated_at, id) < ($4, $6::uuid))
          order by updated_at desc, id desc
          limit $5`,
        [
          ctx.principal.accountId,
          spaceIds,
          req.name || null,
          updatedAfter(req.page?.after).at,
          fetchSize(req.page),
          updatedAfter(req.page?.after).id,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, updatedKey);
      return { prompts: items.map(toPrompt), page: { nextAfter } };
    },

    async getPrompt(req: GetPromptRequest, ctx: CallContext): Promise<PromptWithVersion> {
      if (req.versionId && req.label)
        throw new DomainError("invalid-request", "version_id and label are mutually exclusive");
      const p = await promptRow(ctx, req.id);
      const v = req.versionId
        ? await versionRow(ctx, "v.id = $1 and v.prompt_id = $2", [req.versionId, p.id])
        : req.label
          ? await versionRow(
              ctx,
              "v.id = (select version_id from prompt_labels where prompt_id = $1 and label = $2)",
              [p.id, req.label],
              "label",
            )
          : await versionRow(ctx, "v.prompt_id = $1 order by v.id desc", [p.id]);
      return withVersion(p, v);
    },

    async updatePrompt(req: UpdatePromptRequest, ctx: CallContext): Promise<Prompt> {
      const row = await changeable(ctx, req.id, "PROMPT_UPDATE");
      if (req.setDescription)
        await execute(ctx, row.id, {
          type: "UpdatePrompt",
          description: req.description ?? null,
          userId: actorId(ctx),
          now: new Date(),
        });
      return toPrompt(await promptRow(ctx, row.id));
    },

    async deletePrompt(req: DeletePromptRequest, ctx: CallContext): Promise<DeletePromptResponse> {
      const row = await changeable(ctx, req.id, "PROMPT_DELETE");
      await execute(ctx, row.id, { type: "DeletePrompt", userId: actorId(ctx), now: new Date() });
      return {};
    },

    async createPromptVersion(
      req: CreatePromptVersionRequest,
      ctx: CallContext,
    ): Promise<PromptVersion> {
      const row = await changeable(ctx, req.promptId, "PROMPT_UPDATE");
      const versionId = uuidv7();
      await execute(ctx, row.id, {
        type: "CreatePromptVersion",
        versionId,
        version: contentOf(req.content),
        userId: actorId(ctx),
        now: new Date(),
      });
      return toPromptVersion(await versionRow(ctx, "v.id = $1", [versionId]));
    },

    async listPromptVersions(
      req: ListPromptVersionsRequest,
      ctx: CallContext,
    ): Promise<ListPromptVersionsResponse> {
      const p = await promptRow(ctx, req.promptId);
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

    async getPromptVersion(req: GetPromptVersionRequest, ctx: CallContext): Promise<PromptVersion> {
      return toPromptVersion(await versionRow(ctx, "v.id = $1", [req.id]));
    },

    async getPromptLabel(req: GetPromptLabelRequest, ctx: CallContext): Promise<PromptVersion> {
      const p = await promptRow(ctx, req.promptId);
      const v = await versionRow(
        ctx,
        "v.id = (select version_id from prompt_labels where prompt_id = $1 and label = $2)",
        [p.id, req.label],
        "label",
      );
      return toPromptVersion(v);
    },

    async setPromptVersionLabels(
      req: SetPromptVersionLabelsRequest,
      ctx: CallContext,
    ): Promise<PromptVersion> {
      const v = await versionRow(ctx, "v.id = $1", [req.versionId]);
      requirePermission(ctx, v.space_id, "PROMPT_UPDATE");
      await execute(ctx, v.prompt_id, {
        type: "SetPromptVersionLabels",
        versionId: v.id,
        labels: req.labels,
        userId: actorId(ctx),
        now: new Date(),
      });
      return toPromptVersion(await versionRow(ctx, "v.id = $1", [v.id]));
    },

    async deletePromptVersionLabel(
      req: DeletePromptVersionLabelRequest,
      ctx: CallContext,
    ): Promise<DeletePromptVersionLabelResponse> {
      const v = await versionRow(ctx, "v.id = $1", [req.versionId]);
      requirePermission(ctx, v.space_id, "PROMPT_UPDATE");
      await execute(ctx, v.prompt_id, {
        type: "DeletePromptVersionLabel",
        versionId: v.id,
        label: req.label,
        userId: actorId(ctx),
        now: new Date(),
      });
      return {};
    },
  };
}
