import {
  ConcurrencyError,
  commit as commitEvents,
  tracedQuery,
  type EventStore,
} from "@argus/eventstore";
import {
  DomainError,
  actorMetadata,
  fetchSize,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import type {
  AiIntegration,
  CreateAiIntegrationRequest,
  DeleteAiIntegrationRequest,
  DeleteAiIntegrationResponse,
  GetAiIntegrationRequest,
  ListAiIntegrationsRequest,
  ListAiIntegrationsResponse,
  UpdateAiIntegrationRequest,
} from "@argus/proto/catalog/v1/ai_integrations";
import type { Pool, PoolClient } from "pg";
import {
  AI_INTEGRATION_COLUMNS,
  configOf,
  toAiIntegration,
  type AiIntegrationRow,
} from "./aiIntegrationsRows.ts";
import {
  aiIntegrationStateOf,
  decideAiIntegration,
  initialAiIntegrationState,
  type AiIntegrationConfig,
  type AiIntegrationEvent,
} from "./domain/aiIntegration.ts";
import { project } from "./projection.ts";
import { actorId } from "./spaceAccess.ts";
import type { Spaces } from "./spaces.ts";

type Deps = { pool: Pool; store: EventStore; spaces: Spaces };

const NAME_CONFLICT = {
  ai_integrations_name_per_account:
    "an AI integration with this name already exists in the account",
};

/**
 * Who may see an integration: admins all of the account's; others those that apply to a space
 * where they hold AI_PROVIDER_READ (account-wide ones, ones of their organizations, ones
 * scoped to that space). $1 account, $2 admin, $3 readable space ids, $4 organization ids.
 */
const VISIBLE = `account_id = $1 and ($2 or scoped_space_ids && $3::uuid[] or (cardinality($3::uuid[]) > 0 and (
    jsonb_array_length(scopings) = 0
    or exists (select 1 from jsonb_array_elements(scopings) s
      where s ->> 'space_id' is null
        and (s ->> 'organization_id' is null or (s ->> 'organization_id')::uuid = any($4::uuid[]))))))`;

function readableSpaces(ctx: CallContext): string[] {
  const p = ctx.principal;
  return Object.keys(p.spacePermissions).filter((s) =>
    hasSpacePermission(p, s, "AI_PROVIDER_READ"),
  );
}

/** Only admins change account- or organization-wide integrations; others need `permission` in every scoped space. */
function requireChangeable(
  ctx: CallContext,
  config: AiIntegrationConfig,
  permission: string,
): void {
  const p = ctx.principal;
  if (isAccountAdmin(p)) return;
  const spaces = config.scopings.map((s) => s.space_id);
  if (
    spaces.length === 0 ||
    spaces.some((s) => s === null || !hasSpacePermission(p, s, permission))
  )
    throw new DomainError(
      "access-forbidden",
      `needs the account admin role, or ${permission} in every space the integration is scoped to`,
    );
}

export function aiIntegrationHandlers(deps: Deps) {
  const { pool, store, spaces } = deps;

  async function row(ctx: CallContext, id: string): Promise<AiIntegrationRow> {
    const p = ctx.principal;
    const res = await tracedQuery<AiIntegrationRow>(
      pool,
      "get AI integration",
      `select ${AI_INTEGRATION_COLUMNS} from ai_integrations where ${VISIBLE} and id = $5`,
      [p.accountId, isAccountAdmin(p), readableSpaces(ctx), p.organizationIds, id],
    );
    const found = res.rows[0];
    if (!found) throw notFound("AI integration");
    return found;
  }

  /** Scopings must name spaces and organizations the caller can see (422 otherwise). */
  async function checkScopings(ctx: CallContext, config: AiIntegrationConfig): Promise<void> {
    for (const s of config.scopings) {
      if (s.organization_id !== null && !ctx.principal.organizationIds.includes(s.organization_id))
        throw new DomainError("unprocessable-entity", "a scoping names an unknown organization");
      if (s.space_id !== null)
        await spaces.get(ctx, s.space_id).catch(() => {
          throw new DomainError("unprocessable-entity", "a scoping names an unknown space");
        });
    }
  }

  /** Appends, projects and writes (or removes) the key in one transaction; the key never enters an event. */
  async function commitWithKey(
    ctx: CallContext,
    id: string,
    expectedVersion: number,
    events: AiIntegrationEvent[],
    apiKey: string | null | undefined,
  ): Promise<void> {
    const writeKey = async (client: PoolClient) => {
      if (apiKey === undefined) return;
      if (apiKey === null)
        await tracedQuery(
          client,
          "remove AI key",
          "delete from ai_integration_secrets where integration_id = $1",
          [id],
        );
      else
        await tracedQuery(
          client,
          "store AI key",
          `insert into ai_integration_secrets (integration_id, api_key) values ($1, $2)
             on conflict (integration_id) do update set api_key = excluded.api_key`,
          [id, apiKey],
        );
    };
    try {
      await commitEvents(store, {
        streamId: `ai_integration-${id}`,
        expectedVersion,
        events,
        metadata: actorMetadata(ctx),
        project: async (client, evs) => {
          await project(client, evs);
          await writeKey(client);
        },
        conflicts: NAME_CONFLICT,
      });
    } catch (err) {
      if (err instanceof ConcurrencyError)
        throw new DomainError("resource-conflict", "the resource changed concurrently; retry");
      throw err;
    }
  }

  async function history(id: string): Promise<AiIntegrationEvent[]> {
    return (await store.readStream(`ai_integration-${id}`)) as unknown as AiIntegrationEvent[];
  }

  return {
    async createAiIntegration(
      req: CreateAiIntegrationRequest,
      ctx: CallContext,
    ): Promise<AiIntegration> {
      const config = configOf(req.config);
      requireChangeable(ctx, config, "LLM_INTEGRATION_CREATE");
      await checkScopings(ctx, config);
      const id = uuidv7();
      const apiKey = req.apiKey ?? null;
      const events = decideAiIntegration(
        {
          type: "CreateAiIntegration",
          id,
          accountId: ctx.principal.accountId,
          config,
          apiKey,
          userId: actorId(ctx),
          now: new Date(),
        },
        initialAiIntegrationState,
      );
      await commitWithKey(ctx, id, 0, events, apiKey ?? undefined);
      return toAiIntegration(await row(ctx, id));
    },

    async listAiIntegrations(
      req: ListAiIntegrationsRequest,
      ctx: CallContext,
    ): Promise<ListAiIntegrationsResponse> {
      const p = ctx.principal;
      if (req.spaceId) await spaces.get(ctx, req.spaceId);
      // Integrations applying to the named spaces: scoped to one of them, or account-wide.
      const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const res = await tracedQuery<AiIntegrationRow>(
        pool,
        "list AI integrations",
        `select ${AI_INTEGRATION_COLUMNS} from ai_integrations
          where ${VISIBLE}
            and ($5::uuid is null or $5 = any(scoped_space_ids) or jsonb_array_length(scopings) = 0)
            and ($6::text is null or strpos(lower(name), lower($6)) > 0)
            and ($7::uuid is null or id < $7)
            and ($9::uuid[] is null or scoped_space_ids && $9::uuid[] or jsonb_array_length(scopings) = 0)
          order by id desc
          limit $8`,
        [
          p.accountId,
          isAccountAdmin(p),
          readableSpaces(ctx),
          p.organizationIds,
          req.spaceId || null,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          named,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { aiIntegrations: items.map(toAiIntegration), page: { nextAfter } };
    },

    async getAiIntegration(req: GetAiIntegrationRequest, ctx: CallContext): Promise<AiIntegration> {
      return toAiIntegration(await row(ctx, req.id));
    },

    async updateAiIntegration(
      req: UpdateAiIntegrationRequest,
      ctx: CallContext,
    ): Promise<AiIntegration> {
      const current = await row(ctx, req.id);
      const evs = await history(current.id);
      const before = aiIntegrationStateOf(evs);
      if (!before.config) throw notFound("AI integration");
      requireChangeable(ctx, before.config, "LLM_INTEGRATION_UPDATE");
      const next = configOf(req.config);
      const fields = new Set(req.fields);
      const changes = Object.fromEntries(
        Object.entries(next).filter(([k]) => fields.has(k)),
      ) as Partial<AiIntegrationConfig>;
      if (changes.scopings) {
        // Narrowing or widening the audience is judged on the new scopings too.
        requireChangeable(ctx, { ...next, scopings: changes.scopings }, "LLM_INTEGRATION_UPDATE");
        await checkScopings(ctx, next);
      }
      const apiKey = fields.has("api_key") ? (req.apiKey ?? null) : undefined;
      const events = decideAiIntegration(
        { type: "UpdateAiIntegration", changes, apiKey, now: new Date() },
        before,
      );
      await commitWithKey(ctx, current.id, evs.length, events, apiKey);
      return toAiIntegration(await row(ctx, current.id));
    },

    async deleteAiIntegration(
      req: DeleteAiIntegrationRequest,
      ctx: CallContext,
    ): Promise<DeleteAiIntegrationResponse> {
      const current = await row(ctx, req.id);
      const evs = await history(current.id);
      const state = aiIntegrationStateOf(evs);
      if (!state.config) throw notFound("AI integration");
      requireChangeable(ctx, state.config, "LLM_INTEGRATION_DELETE");
      const events = decideAiIntegration({ type: "DeleteAiIntegration", now: new Date() }, state);
      await commitWithKey(ctx, current.id, evs.length, events, undefined);
      return {};
    },
  };
}
