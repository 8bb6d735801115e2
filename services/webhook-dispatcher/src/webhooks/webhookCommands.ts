import type { PoolClient } from "pg";
import { streamId, type WebhookAuthType, type WebhookSettings } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import {
  actorMetadata,
  checkDestinationUrl,
  notFound,
  uuidv7,
  type CallContext,
  withholdReply,
} from "@argus/platform";
import type {
  CreateWebhookRequest,
  CreatedWebhook,
  DeleteWebhookRequest,
  DeleteWebhookResponse,
  TestWebhookRequest,
  TestWebhookResponse,
  UpdateWebhookRequest,
  Webhook,
} from "@argus/proto/webhooks/v1/webhooks";
import { LIMITS } from "@argus/contracts";
import { isUuid } from "@argus/spaces";
import { requireManager, readsOrganization } from "./webhookAccess.ts";
import {
  AUTH_TYPES,
  checkAuthToken,
  invalid,
  webhookDecider,
  type WebhookCommand,
} from "./webhookDecider.ts";
import { attempt } from "../deliveries/deliverySend.ts";
import { recordAttempt } from "../deliveries/deliveryAttempts.ts";
import { testMessage } from "../deliveries/deliveryPayloads.ts";
import { newSigningSecret, secretHint } from "../deliveries/deliverySigning.ts";
import { managedWebhook, toWebhook, webhookRow } from "./webhookRows.ts";
import type { WebhooksDeps } from "../deps.ts";

const conflicts = {
  webhooks_name_per_organization: "a webhook with this name already exists in the organization",
};

/** Credentials are written beside the events, never in them; `undefined` leaves one as it is. */
async function writeCredentials(
  client: PoolClient,
  id: string,
  c: { authToken?: string | null; signingSecret?: string },
): Promise<void> {
  if (c.authToken === undefined && c.signingSecret === undefined) return;
  await tracedQuery(
    client,
    "store webhook credentials",
    `insert into webhook_credentials (webhook_id, auth_token, signing_secret)
     values ($1, $2, $3)
     on conflict (webhook_id) do update
       set auth_token = case when $4 then excluded.auth_token else webhook_credentials.auth_token end`,
    [id, c.authToken ?? null, c.signingSecret ?? null, c.authToken !== undefined],
  );
}

export function webhookCommands(deps: WebhooksDeps) {
  const { pool, spaces, outbound, clock } = deps;

  const run = (
    ctx: CallContext,
    id: string,
    command: WebhookCommand,
    credentials: { authToken?: string | null; signingSecret?: string },
  ) =>
    deps.commands.transact(
      async (scope) => {
        await scope.decide(streamId("webhook", id), webhookDecider, command, actorMetadata(ctx));
        await writeCredentials(scope.client, id, credentials);
      },
      { conflicts },
    );

  const destinationOf = (url: string) => checkDestinationUrl(url, outbound.policy).toString();

  return {
    async createWebhook(req: CreateWebhookRequest, ctx: CallContext): Promise<CreatedWebhook> {
      // An HMAC signing secret is answered once: no copy of the answer is kept for a retry.
      withholdReply(ctx);
      const authType = (req.authType || "BEARER") as WebhookAuthType;
      if (!AUTH_TYPES.includes(authType))
        throw invalid(`auth_type must be one of ${AUTH_TYPES.join(", ")}`);
      // An organization the caller cannot see is not found, as identity answers it.
      if (
        !isUuid(req.organizationId) ||
        !readsOrganization(ctx.principal, req.organizationId) ||
        !(await spaces.seesOrganization(ctx, req.organizationId))
      )
        throw notFound("organization");
      requireManager(ctx, req.organizationId, "creating a webhook");
      const authToken = req.authToken === undefined ? undefined : checkAuthToken(req.authToken);
      const settings: WebhookSettings = {
        name: req.name,
        description: req.description,
        url: destinationOf(req.url),
        timeout_ms: req.timeoutMs || LIMITS.WEBHOOK_TIMEOUT_MS_DEFAULT,
        headers: req.headers,
        has_auth_token: authToken !== undefined,
      };
      const id = uuidv7();
      const signingSecret = authType === "HMAC_SHA256" ? newSigningSecret() : undefined;
      await run(
        ctx,
        id,
        {
          type: "CreateWebhook",
          id,
          accountId: ctx.principal.accountId,
          organizationId: req.organizationId,
          authType,
          signingSecretHint: signingSecret ? secretHint(signingSecret) : "",
          settings,
          userId: ctx.principal.userId,
          now: clock.now(),
        },
        { authToken, signingSecret },
      );
      return {
        webhook: toWebhook(await webhookRow(pool, ctx, id)),
        signingSecret: signingSecret ?? "",
      };
    },

    async updateWebhook(req: UpdateWebhookRequest, ctx: CallContext): Promise<Webhook> {
      const current = await managedWebhook(pool, ctx, req.id, "updating a webhook");
      const fields = new Set(req.fields);
      if (fields.size === 0) throw invalid("at least one field must be provided");
      const changes: Partial<WebhookSettings> = {};
      if (fields.has("name")) changes.name = req.name;
      if (fields.has("description")) changes.description = req.description ?? "";
      if (fields.has("url")) changes.url = destinationOf(req.url);
      if (fields.has("timeout_ms")) changes.timeout_ms = req.timeoutMs;
      if (fields.has("headers")) changes.headers = req.headers;
      let authToken: string | null | undefined;
      if (fields.has("auth_token")) {
        authToken = req.authToken === undefined ? null : checkAuthToken(req.authToken);
        changes.has_auth_token = authToken !== null;
      }
      await run(
        ctx,
        current.id,
        { type: "UpdateWebhook", changes, now: clock.now() },
        { authToken },
      );
      return toWebhook(await webhookRow(pool, ctx, current.id));
    },

    async deleteWebhook(
      req: DeleteWebhookRequest,
      ctx: CallContext,
    ): Promise<DeleteWebhookResponse> {
      const current = await managedWebhook(pool, ctx, req.id, "deleting a webhook");
      await run(ctx, current.id, { type: "DeleteWebhook", now: clock.now() }, {});
      return {};
    },

    /** One real delivery of a test event, recorded like any attempt; never retried. */
    async testWebhook(req: TestWebhookRequest, ctx: CallContext): Promise<TestWebhookResponse> {
      const current = await managedWebhook(pool, ctx, req.id, "testing a webhook");
      if (current.auth_type === "HMAC_SHA256")
        throw invalid("test deliveries are not supported for HMAC_SHA256 webhooks");
      const token = await tracedQuery<{ auth_token: string | null }>(
        pool,
        "webhook token",
        "select auth_token from webhook_credentials where webhook_id = $1",
        [current.id],
      );
      const message = testMessage(current.id, clock.now());
      const result = await attempt(
        {
          url: current.url,
          authType: current.auth_type,
          timeoutMs: current.timeout_ms,
          headers: current.headers,
          authToken: token.rows[0]?.auth_token ?? null,
          signingSecret: null,
        },
        message,
        outbound,
        clock.now(),
      );
      await recordAttempt(pool, current.id, message, 1, result);
      return {
        statusCode: result.statusCode ?? 502,
        ...(result.error === undefined ? {} : { errorMessage: result.error }),
      };
    },
  };
}
