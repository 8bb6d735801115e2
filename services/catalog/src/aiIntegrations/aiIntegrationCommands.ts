import type { PoolClient } from "pg";
import type { AiIntegrationConfig } from "@argus/contracts";
import { streamId } from "@argus/contracts";
import { tracedQuery, type CommandInput } from "@argus/eventstore";
import {
  actorMetadata,
  uuidv7,
  type CallContext,
  type Permission,
  type SecretBox,
} from "@argus/platform";
import type {
  AiIntegration,
  CreateAiIntegrationRequest,
  DeleteAiIntegrationRequest,
  DeleteAiIntegrationResponse,
  UpdateAiIntegrationRequest,
} from "@argus/proto/catalog/v1/ai_integrations";
import { creatorUserId, type Spaces } from "@argus/spaces";
import {
  aiIntegrationDecider,
  type AiIntegrationCommand,
  type AiIntegrationState,
} from "./aiIntegrationDecider.ts";
import { apiKeyBinding, toAiIntegration } from "./aiIntegrationRows.ts";
import { visibleIntegration } from "./aiIntegrationQueries.ts";
import type { CatalogDeps } from "../deps.ts";
import { authorizedOnScopings, checkScopings, requireChangeable } from "../shared/scopedAccess.ts";
import { parseObject } from "../shared/requestJson.ts";
import { aiConfigOf } from "./aiIntegrationRequests.ts";

const conflicts = {
  ai_integrations_name_per_account:
    "an AI integration with this name already exists in the account",
};

/** Writes (or, for null, removes) the key, sealed; `undefined` leaves it. Never in an event. */
async function writeKey(
  client: PoolClient,
  secrets: SecretBox,
  id: string,
  apiKey: string | null | undefined,
) {
  if (apiKey === null)
    await tracedQuery(
      client,
      "remove AI key",
      "delete from ai_integration_secrets where integration_id = $1",
      [id],
    );
  else if (apiKey !== undefined)
    await tracedQuery(
      client,
      "store AI key",
      `insert into ai_integration_secrets (integration_id, api_key) values ($1, $2)
         on conflict (integration_id) do update set api_key = excluded.api_key`,
      [id, secrets.seal(apiKey, apiKeyBinding(id))],
    );
}

const authorizedBy = (
  spaces: Spaces,
  ctx: CallContext,
  permission: Permission,
  command: AiIntegrationCommand,
) =>
  authorizedOnScopings<AiIntegrationState, AiIntegrationCommand>(
    spaces,
    ctx,
    permission,
    (s) => (s.status === "live" ? s.config.scopings : []),
    command,
  );

/** AI integrations are account-level: no space in their metadata, the key beside the events. */
export function aiIntegrationCommands(deps: CatalogDeps) {
  const { pool, spaces } = deps;

  const run = (
    ctx: CallContext,
    id: string,
    command: CommandInput<AiIntegrationState, AiIntegrationCommand>,
    apiKey: string | null | undefined,
  ) =>
    deps.commands.transact(
      async (scope) => {
        const stream = streamId("ai_integration", id);
        await scope.decide(stream, aiIntegrationDecider, command, actorMetadata(ctx));
        await writeKey(scope.client, deps.secrets, id, apiKey);
      },
      { conflicts },
    );

  /** Visible (else 404) and changeable by the caller as the projection shows it (else 403). */
  async function changeable(ctx: CallContext, id: string, permission: Permission) {
    const current = await visibleIntegration(pool, ctx, id);
    await requireChangeable(spaces, ctx, current.scopings, permission);
    return current;
  }

  return {
    async createAiIntegration(
      req: CreateAiIntegrationRequest,
      ctx: CallContext,
    ): Promise<AiIntegration> {
      const config = aiConfigOf(req.config);
      await requireChangeable(spaces, ctx, config.scopings, "LLM_INTEGRATION_CREATE");
      await checkScopings(spaces, ctx, config.scopings);
      const id = uuidv7();
      const apiKey = req.apiKey ?? null;
      const command = {
        type: "CreateAiIntegration",
        id,
        accountId: ctx.principal.accountId,
        config,
        apiKey,
        userId: creatorUserId(ctx),
        now: deps.clock.now(),
      } as const;
      await run(ctx, id, command, apiKey ?? undefined);
      return toAiIntegration(await visibleIntegration(pool, ctx, id));
    },

    async updateAiIntegration(
      req: UpdateAiIntegrationRequest,
      ctx: CallContext,
    ): Promise<AiIntegration> {
      const current = await changeable(ctx, req.id, "LLM_INTEGRATION_UPDATE");
      const fields = new Set(req.fields);
      const changes = Object.fromEntries(
        Object.entries(aiConfigOf(req.config)).filter(([k]) => fields.has(k)),
      ) as Partial<AiIntegrationConfig>;
      if (changes.scopings) {
        // Narrowing or widening the audience is judged on the new scopings too.
        await requireChangeable(spaces, ctx, changes.scopings, "LLM_INTEGRATION_UPDATE");
        await checkScopings(spaces, ctx, changes.scopings);
      }
      const apiKey = fields.has("api_key") ? (req.apiKey ?? null) : undefined;
      const command = {
        type: "UpdateAiIntegration",
        changes,
        apiKey,
        ...(req.providerMetadataMergeJson
          ? {
              metadataMerge: parseObject("provider_metadata_merge", req.providerMetadataMergeJson)!,
            }
          : {}),
        requireModelSource: req.requireModelSource,
        now: deps.clock.now(),
      } as const;
      await run(
        ctx,
        current.id,
        authorizedBy(spaces, ctx, "LLM_INTEGRATION_UPDATE", command),
        apiKey,
      );
      return toAiIntegration(await visibleIntegration(pool, ctx, current.id));
    },

    async deleteAiIntegration(
      req: DeleteAiIntegrationRequest,
      ctx: CallContext,
    ): Promise<DeleteAiIntegrationResponse> {
      const current = await changeable(ctx, req.id, "LLM_INTEGRATION_DELETE");
      const command = { type: "DeleteAiIntegration", now: deps.clock.now() } as const;
      await run(
        ctx,
        current.id,
        authorizedBy(spaces, ctx, "LLM_INTEGRATION_DELETE", command),
        undefined,
      );
      return {};
    },
  };
}
