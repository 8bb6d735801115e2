import type { PoolClient } from "pg";
import type { CommandInput } from "@argus/eventstore";
import { uuidv7, type CallContext } from "@argus/platform";
import type {
  CreateEvaluatorRequest,
  CreateEvaluatorVersionRequest,
  DeleteEvaluatorRequest,
  DeleteEvaluatorResponse,
  DeleteEvaluatorVersionsRequest,
  DeleteEvaluatorVersionsResponse,
  Evaluator,
  EvaluatorVersion,
  EvaluatorWithVersion,
  UpdateEvaluatorRequest,
} from "@argus/proto/catalog/v1/evaluators";
import { creatorUserId } from "@argus/spaces";
import { ACCESS } from "../shared/access.ts";
import {
  evaluatorDecider,
  type EvaluatorCommand,
  type EvaluatorState,
} from "./evaluatorDecider.ts";
import type { EvaluatorVersionContent } from "./evaluatorConfigRules.ts";
import { findEvaluator, toEvaluator } from "./evaluatorRows.ts";
import { evaluatorViews } from "./evaluatorViews.ts";
import type { CatalogDeps } from "../deps.ts";
import { usableIntegrationCheck } from "./evaluatorIntegrationCheck.ts";
import { evaluatorContentOf } from "./evaluatorRequests.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

const nameConflict = (name: string) => ({
  evaluators_name_per_space: `an evaluator named ${JSON.stringify(name)} already exists in this space`,
});

/** The command's own rules (400, 404) come first, then the integration it names (422). */
const checkedThen = (
  command: EvaluatorCommand,
  check: (client: PoolClient) => Promise<void>,
): CommandInput<EvaluatorState, EvaluatorCommand> => ({
  build: async (state, client) => {
    evaluatorDecider.decide(command, state);
    await check(client);
    return command;
  },
});

/** Evaluators and their versions: every change is decided on the evaluator's stream. */
export function evaluatorCommands(deps: CatalogDeps) {
  const evaluators = resourceCommands(deps, {
    aggregate: "evaluator",
    decider: evaluatorDecider,
    access: ACCESS.evaluator,
    find: findEvaluator,
  });
  const views = evaluatorViews(deps.pool, deps.spaces);

  return {
    async createEvaluator(
      req: CreateEvaluatorRequest,
      ctx: CallContext,
    ): Promise<EvaluatorWithVersion> {
      const command = (id: string, version: EvaluatorVersionContent): EvaluatorCommand => ({
        type: "CreateEvaluator",
        id,
        versionId: uuidv7(),
        accountId: ctx.principal.accountId,
        spaceId: req.spaceId,
        name: req.name,
        description: req.description ?? null,
        evaluatorType: req.type,
        version,
        userId: creatorUserId(ctx),
        now: deps.clock.now(),
      });
      const { id } = await evaluators.create(
        ctx,
        req.spaceId,
        "EVALUATOR_CREATE",
        async (id) => {
          const version = evaluatorContentOf(req.version);
          const check = await usableIntegrationCheck(deps.spaces, ctx, req.spaceId, version);
          return checkedThen(command(id, version), check);
        },
        nameConflict(req.name),
      );
      const e = await views.evaluator(ctx, id);
      return { evaluator: toEvaluator(e), version: views.present(await views.latest(ctx, id)) };
    },

    async updateEvaluator(req: UpdateEvaluatorRequest, ctx: CallContext): Promise<Evaluator> {
      const command = {
        type: "UpdateEvaluator",
        name: req.name,
        description: req.setDescription ? (req.description ?? null) : undefined,
        now: deps.clock.now(),
      } as const;
      const conflicts = nameConflict(req.name ?? "");
      const row = await evaluators.change(ctx, req.id, "EVALUATOR_UPDATE", command, conflicts);
      return toEvaluator(await views.evaluator(ctx, row.id));
    },

    async deleteEvaluator(
      req: DeleteEvaluatorRequest,
      ctx: CallContext,
    ): Promise<DeleteEvaluatorResponse> {
      const command = { type: "DeleteEvaluator", now: deps.clock.now() } as const;
      await evaluators.change(ctx, req.id, "EVALUATOR_DELETE", command);
      return {};
    },

    /**
     * Deletes those of the named versions that belong to the evaluator (EVALUATOR_DELETE);
     * every other requested id is reported as not deleted. Deleting every remaining version
     * is a 409: an evaluator always has a latest version.
     */
    async deleteEvaluatorVersions(
      req: DeleteEvaluatorVersionsRequest,
      ctx: CallContext,
    ): Promise<DeleteEvaluatorVersionsResponse> {
      const row = await evaluators.load(ctx, req.evaluatorId, "EVALUATOR_DELETE");
      const command: EvaluatorCommand = {
        type: "DeleteEvaluatorVersions",
        versionIds: req.versionIds,
        now: deps.clock.now(),
      };
      const { events } = await evaluators.run(ctx, row.id, row.space_id, command);
      const deleted = new Set(
        events.flatMap((e) => (e.type === "EvaluatorVersionsDeleted" ? e.data.version_ids : [])),
      );
      const requested = [...new Set(req.versionIds)];
      return {
        deletedVersionIds: requested.filter((id) => deleted.has(id)),
        notDeletedVersionIds: requested.filter((id) => !deleted.has(id)),
      };
    },

    async createEvaluatorVersion(
      req: CreateEvaluatorVersionRequest,
      ctx: CallContext,
    ): Promise<EvaluatorVersion> {
      const row = await evaluators.load(ctx, req.evaluatorId, "EVALUATOR_UPDATE");
      const versionId = uuidv7();
      const version = evaluatorContentOf(req.content);
      const check = await usableIntegrationCheck(deps.spaces, ctx, row.space_id, version);
      const command: EvaluatorCommand = {
        type: "CreateEvaluatorVersion",
        versionId,
        version,
        userId: creatorUserId(ctx),
        now: deps.clock.now(),
      };
      await evaluators.run(ctx, row.id, row.space_id, checkedThen(command, check));
      return views.present(await views.version(ctx, versionId));
    },
  };
}
