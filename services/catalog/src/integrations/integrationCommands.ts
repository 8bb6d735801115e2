import type { PoolClient } from "pg";
import { streamId } from "@argus/contracts";
import { tracedQuery, type CommandInput } from "@argus/eventstore";
import {
  DomainError,
  actorMetadata,
  checkDestinationUrl,
  encodeId,
  uuidv7,
  type CallContext,
  type Permission,
  type SecretBox,
} from "@argus/platform";
import type {
  CreateIntegrationRequest,
  DeleteIntegrationRequest,
  DeleteIntegrationResponse,
  Integration,
  UpdateIntegrationRequest,
} from "@argus/proto/catalog/v1/integrations";
import { creatorUserId } from "@argus/spaces";
import {
  integrationDecider,
  type IntegrationCommand,
  type IntegrationInput,
  type IntegrationState,
} from "./integrationDecider.ts";
import { headersBinding, toIntegration } from "./integrationRows.ts";
import { visibleRemoteIntegration } from "./integrationQueries.ts";
import type { CatalogDeps } from "../deps.ts";
import { authorizedOnScopings, checkScopings, requireChangeable } from "../shared/scopedAccess.ts";
import { integrationInputOf } from "./integrationRequests.ts";

const conflicts = {
  integrations_name_per_account:
    "an AGENT or EVALUATOR integration with this name already exists in the account",
};

/**
 * Writes (or, for null, removes) the header values, sealed (as a JSON string in the `jsonb`
 * column); `undefined` leaves them. Never in an event.
 */
async function writeHeaders(
  client: PoolClient,
  secrets: SecretBox,
  id: string,
  headers: Record<string, string> | null | undefined,
) {
  if (headers === undefined) return;
  if (headers === null || Object.keys(headers).length === 0)
    await tracedQuery(
      client,
      "remove integration headers",
      "delete from integration_secrets where integration_id = $1",
      [id],
    );
  else
    await tracedQuery(
      client,
      "store integration headers",
      `insert into integration_secrets (integration_id, headers) values ($1, $2)
         on conflict (integration_id) do update set headers = excluded.headers`,
      [id, JSON.stringify(secrets.seal(JSON.stringify(headers), headersBinding(id)))],
    );
}

/** REMOTE evaluators whose latest version names the integration (by its public id). */
async function evaluatorsUsing(client: PoolClient, id: string): Promise<number> {
  const res = await tracedQuery<{ n: number }>(
    client,
    "evaluators using integration",
    `select count(*)::int as n from evaluators e
       join lateral (select config from evaluator_versions v where v.evaluator_id = e.id
                      order by v.id desc limit 1) latest on true
      where e.type = 'REMOTE' and latest.config ->> 'integration_id' = $1`,
    [encodeId("Integration", id)],
  );
  return res.rows[0]!.n;
}

const PERMISSION = {
  create: "REMOTE_ENDPOINT_INTEGRATION_CREATE",
  update: "REMOTE_ENDPOINT_INTEGRATION_UPDATE",
  delete: "REMOTE_ENDPOINT_INTEGRATION_DELETE",
} as const satisfies Record<string, Permission>;

/**
 * AGENT and EVALUATOR integrations: account-level like AI integrations, changed by account
 * admins or by holders of the permission in every space they are scoped to; header values
 * beside the events. The endpoint is judged by the outbound policy at write time (and again
 * by whoever calls it).
 */
export function integrationCommands(deps: CatalogDeps) {
  const { pool, spaces } = deps;
  const policy = deps.outbound ?? { allowLoopback: false, allowPrivate: false };

  const run = (
    ctx: CallContext,
    id: string,
    command: CommandInput<IntegrationState, IntegrationCommand>,
    headers: Record<string, string> | null | undefined,
    /** Checked last, in the transaction, once the projection has written. */
    confirm?: (client: PoolClient) => Promise<void>,
  ) =>
    deps.commands.transact(
      async (scope) => {
        await scope.decide(
          streamId("integration", id),
          integrationDecider,
          command,
          actorMetadata(ctx),
        );
        await writeHeaders(scope.client, deps.secrets, id, headers);
        await confirm?.(scope.client);
      },
      { conflicts },
    );

  const authorizedBy = (
    ctx: CallContext,
    permission: Permission,
    command: IntegrationCommand | ((client: PoolClient) => Promise<IntegrationCommand>),
  ) =>
    authorizedOnScopings<IntegrationState, IntegrationCommand>(
      spaces,
      ctx,
      permission,
      (s) => (s.status === "live" ? s.settings.scopings : []),
      command,
    );

  async function changeable(ctx: CallContext, id: string, permission: Permission) {
    const current = await visibleRemoteIntegration(pool, ctx, id);
    await requireChangeable(spaces, ctx, current.scopings, permission);
    return current;
  }

  async function checkAudience(
    ctx: CallContext,
    scopings: IntegrationInput["scopings"],
    p: Permission,
  ) {
    await requireChangeable(spaces, ctx, scopings, p);
    await checkScopings(spaces, ctx, scopings);
  }

  const endpointOf = (endpoint: string) => checkDestinationUrl(endpoint, policy).toString();

  return {
    async createIntegration(req: CreateIntegrationRequest, ctx: CallContext): Promise<Integration> {
      const input = integrationInputOf(req.input);
      await checkAudience(ctx, input.scopings, PERMISSION.create);
      const id = uuidv7();
      const command = {
        type: "CreateIntegration",
        id,
        accountId: ctx.principal.accountId,
        input: { ...input, endpoint: endpointOf(input.endpoint) },
        userId: creatorUserId(ctx),
        presetIds: input.request_presets.map(() => uuidv7()),
        now: deps.clock.now(),
      } as const;
      await run(ctx, id, command, input.headers);
      return toIntegration(await visibleRemoteIntegration(pool, ctx, id));
    },

    async updateIntegration(req: UpdateIntegrationRequest, ctx: CallContext): Promise<Integration> {
      const current = await changeable(ctx, req.id, PERMISSION.update);
      const fields = new Set(req.fields);
      const input = integrationInputOf(req.input);
      const changes: Partial<IntegrationInput> = { type: input.type };
      for (const f of [
        "name",
        "description",
        "scopings",
        "input_schema",
        "request_presets",
      ] as const)
        if (fields.has(f)) Object.assign(changes, { [f]: input[f] });
      if (fields.has("endpoint")) changes.endpoint = endpointOf(input.endpoint);
      if (fields.has("headers")) changes.headers = input.headers;
      if (changes.scopings) await checkAudience(ctx, changes.scopings, PERMISSION.update);
      const command = {
        type: "UpdateIntegration",
        changes,
        presetIds: (changes.request_presets ?? []).map(() => uuidv7()),
        now: deps.clock.now(),
      } as const;
      await run(ctx, current.id, authorizedBy(ctx, PERMISSION.update, command), changes.headers);
      return toIntegration(await visibleRemoteIntegration(pool, ctx, current.id));
    },

    async deleteIntegration(
      req: DeleteIntegrationRequest,
      ctx: CallContext,
    ): Promise<DeleteIntegrationResponse> {
      const current = await changeable(ctx, req.id, PERMISSION.delete);
      await run(
        ctx,
        current.id,
        authorizedBy(ctx, PERMISSION.delete, async (client) => ({
          type: "DeleteIntegration",
          usedByEvaluators: await evaluatorsUsing(client, current.id),
          now: deps.clock.now(),
        })),
        undefined,
        // A REMOTE version naming the integration holds a key-share lock on its row until it
        // commits, so the row's delete (the projection) waits for it; counted again after that,
        // it is seen, and the delete is a 409. Locking the row before the append instead would
        // take the locks in the other order than an update does (a deadlock under races).
        async (client) => {
          const used = await evaluatorsUsing(client, current.id);
          if (used > 0)
            throw new DomainError(
              "resource-conflict",
              `${used} REMOTE evaluator(s) still use this integration; delete or repoint them first`,
            );
        },
      );
      return {};
    },
  };
}
