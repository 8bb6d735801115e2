import { actorMetadata, fetchSize, pageOf, uuidv7, type CallContext } from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateEvaluatorRequest,
  CreateEvaluatorVersionRequest,
  DeleteEvaluatorRequest,
  DeleteEvaluatorResponse,
  Evaluator,
  EvaluatorVersion,
  EvaluatorWithVersion,
  GetEvaluatorRequest,
  GetEvaluatorVersionRequest,
  ListEvaluatorVersionsRequest,
  ListEvaluatorVersionsResponse,
  ListEvaluatorsRequest,
  ListEvaluatorsResponse,
  UpdateEvaluatorRequest,
} from "@argus/proto/catalog/v1/evaluators";
import type { Pool } from "pg";
import { commit } from "./commit.ts";
import { updatedAfter, updatedKey } from "./promptsPaging.ts";
import { requireUsableIntegration } from "./evaluatorIntegration.ts";
import {
  checkedConfig,
  decideEvaluator,
  evaluatorStateOf,
  type EvaluatorCommand,
  type EvaluatorEvent,
} from "./domain/evaluator.ts";
import {
  EVALUATOR_COLUMNS,
  EVALUATOR_VERSION_SELECT,
  evaluatorContentOf,
  toEvaluator,
  toEvaluatorVersion,
  type EvaluatorRow,
  type EvaluatorVersionRow,
} from "./evaluatorsRows.ts";
import {
  actorId,
  listableSpaceIds,
  requireCreatable,
  requirePermission,
  requireReadable,
} from "./spaceAccess.ts";
import type { Spaces } from "./spaces.ts";

type Deps = { pool: Pool; store: EventStore; spaces: Spaces };

const nameConflict = (name: string) => ({
  evaluators_name_per_space: `an evaluator named ${JSON.stringify(name)} already exists in this space`,
});

export function evaluatorHandlers(deps: Deps) {
  const { pool, store, spaces } = deps;

  async function evaluatorRow(ctx: CallContext, id: string): Promise<EvaluatorRow> {
    const res = await tracedQuery<EvaluatorRow>(
      pool,
      "get evaluator",
      `select ${EVALUATOR_COLUMNS} from evaluators where id = $1`,
      [id],
    );
    const row = res.rows[0];
    requireReadable(ctx, row, "EVALUATOR_READ", "evaluator");
    return row;
  }

  async function versionRow(
    ctx: CallContext,
    where: string,
    values: unknown[],
  ): Promise<EvaluatorVersionRow> {
    const res = await tracedQuery<EvaluatorVersionRow>(
      pool,
      "get evaluator version",
      `${EVALUATOR_VERSION_SELECT} where ${where} limit 1`,
      values,
    );
    const row = res.rows[0];
    requireReadable(ctx, row, "EVALUATOR_READ", "evaluator version");
    return row;
  }

  async function changeable(ctx: CallContext, id: string, permission: string) {
    const row = await evaluatorRow(ctx, id);
    requirePermission(ctx, row.space_id, permission);
    return row;
  }

  /** Load (fold the stream), decide, commit at the version decided on. */
  async function execute(
    ctx: CallContext,
    row: EvaluatorRow,
    command: EvaluatorCommand,
    conflicts: Record<string, string> = {},
  ): Promise<void> {
    const streamId = `evaluator-${row.id}`;
    const history = (await store.readStream(streamId)) as unknown as EvaluatorEvent[];
    const events = decideEvaluator(command, evaluatorStateOf(history));
    await commit(
      store,
      streamId,
      history.length,
      events,
      { ...actorMetadata(ctx), space_id: row.space_id },
      conflicts,
    );
  }

  const latest = (ctx: CallContext, id: string) =>
    versionRow(ctx, "v.evaluator_id = $1 order by v.id desc", [id]);

  return {
    async createEvaluator(
      req: CreateEvaluatorRequest,
      ctx: CallContext,
    ): Promise<EvaluatorWithVersion> {
      await requireCreatable(spaces, ctx, req.spaceId, "EVALUATOR_CREATE");
      const id = uuidv7();
      const version = evaluatorContentOf(req.version);
      const events = decideEvaluator(
        {
          type: "CreateEvaluator",
          id,
          versionId: uuidv7(),
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          description: req.description ?? null,
          evaluatorType: req.type,
          version,
          userId: actorId(ctx),
          now: new Date(),
        },
        evaluatorStateOf([]),
      );
      await requireUsableIntegration(deps, ctx, req.spaceId, version);
      await commit(
        store,
        `evaluator-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), space_id: req.spaceId },
        nameConflict(req.name),
      );
      return {
        evaluator: toEvaluator(await evaluatorRow(ctx, id)),
        version: toEvaluatorVersion(await latest(ctx, id)),
      };
    },

    async listEvaluators(
      req: ListEvaluatorsRequest,
      ctx: CallContext,
    ): Promise<ListEvaluatorsResponse> {
      const spaceIds = await listableSpaceIds(
        spaces,
        ctx,
        { spaceId: req.spaceId, spaceName: req.spaceName },
        "EVALUATOR_READ",
      );
      const res = await tracedQuery<EvaluatorRow>(
        pool,
        "list evaluators",
        `select ${EVALUATOR_COLUMNS} from evaluators
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
      return { evaluators: items.map(toEvaluator), page: { nextAfter } };
    },

    async getEvaluator(req: GetEvaluatorRequest, ctx: CallContext): Promise<EvaluatorWithVersion> {
      const e = await evaluatorRow(ctx, req.id);
      const v = req.versionId
        ? await versionRow(ctx, "v.id = $1 and v.evaluator_id = $2", [req.versionId, e.id])
        : await latest(ctx, e.id);
      return { evaluator: toEvaluator(e), version: toEvaluatorVersion(v) };
    },

    async updateEvaluator(req: UpdateEvaluatorRequest, ctx: CallContext): Promise<Evaluator> {
      const row = await changeable(ctx, req.id, "EVALUATOR_UPDATE");
      await execute(
        ctx,
        row,
        {
          type: "UpdateEvaluator",
          name: req.name,
          description: req.setDescription ? (req.description ?? null) : undefined,
          userId: actorId(ctx),
          now: new Date(),
        },
        nameConflict(req.name ?? row.name),
      );
      return toEvaluator(await evaluatorRow(ctx, row.id));
    },

    async deleteEvaluator(
      req: DeleteEvaluatorRequest,
      ctx: CallContext,
    ): Promise<DeleteEvaluatorResponse> {
      const row = await changeable(ctx, req.id, "EVALUATOR_DELETE");
      await execute(ctx, row, { type: "DeleteEvaluator", userId: actorId(ctx), now: new Date() });
      return {};
    },

    async createEvaluatorVersion(
      req: CreateEvaluatorVersionRequest,
      ctx: CallContext,
    ): Promise<EvaluatorVersion> {
      const row = await changeable(ctx, req.evaluatorId, "EVALUATOR_UPDATE");
      const versionId = uuidv7();
      const version = evaluatorContentOf(req.content);
      // The config's own rules (400) come before the integration it names (422).
      checkedConfig(row.type, version);
      await requireUsableIntegration(deps, ctx, row.space_id, version);
      await execute(ctx, row, {
        type: "CreateEvaluatorVersion",
        versionId,
        version,
        userId: actorId(ctx),
        now: new Date(),
      });
      return toEvaluatorVersion(await versionRow(ctx, "v.id = $1", [versionId]));
    },

    async listEvaluatorVersions(
      req: ListEvaluatorVersionsRequest,
      ctx: CallContext,
    ): Promise<ListEvaluatorVersionsResponse> {
      const e = await evaluatorRow(ctx, req.evaluatorId);
      const res = await tracedQuery<EvaluatorVersionRow>(
        pool,
        "list evaluator versions",
        `${EVALUATOR_VERSION_SELECT} where v.evaluator_id = $1 and ($2::uuid is null or v.id < $2)
          order by v.id desc limit $3`,
        [e.id, req.page?.after || null, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { versions: items.map(toEvaluatorVersion), page: { nextAfter } };
    },

    async getEvaluatorVersion(
      req: GetEvaluatorVersionRequest,
      ctx: CallContext,
    ): Promise<EvaluatorVersion> {
      return toEvaluatorVersion(await versionRow(ctx, "v.id = $1", [req.id]));
    },
  };
}
