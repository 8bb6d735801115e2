import {
  DomainError,
  actorMetadata,
  notFound,
  type CallContext,
  withholdReply,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  RefreshApiKeyRequest,
  RefreshApiKeyResponse,
  RevokeApiKeyRequest,
  RevokeApiKeyResponse,
} from "@argus/proto/identity/v1/api_keys";
import { streamId } from "@argus/contracts";
import { apiKeyDecider } from "./apiKeyDecider.ts";
import { canReadKey, canRefreshKey, canRevokeKey } from "./apiKeyAccess.ts";
import { redactArgusKey } from "./apiKeyFormat.ts";
import { hashApiKey } from "../shared/secretHash.ts";
import { toApiKey } from "./apiKeyRows.ts";
import { adminSpaces, loadKey } from "./apiKeyReads.ts";
import type { IdentityDeps } from "../deps.ts";
import { parseTime } from "./apiKeyCommands.ts";
import { dataOf } from "../shared/decided.ts";
import { generateArgusKey } from "../shared/newSecrets.ts";

export function apiKeyChanges({ pool, commands, pepper, clock }: IdentityDeps) {
  /** Who may change the key (read from the projection); the key's state is its stream's. */
  async function authorize(ctx: CallContext, id: string, allowed: typeof canRevokeKey) {
    const p = ctx.principal;
    const key = await loadKey(pool, p.accountId, id);
    if (!key) throw notFound("API key");
    const facts = {
      keyType: key.key_type,
      accountId: key.account_id,
      createdByUserId: key.created_by_user_id,
      boundSpaces: key.bound_spaces,
    };
    const admins = await adminSpaces(pool, p, key.bound_space_ids);
    // Without read access the key's existence stays hidden (spec endpoint 4, rule 5).
    if (!canReadKey(p, facts, admins)) throw notFound("API key");
    if (!allowed(p, facts, admins))
      throw new DomainError("access-forbidden", "not allowed to change this API key");
    const spaces = key.bound_space_ids;
    return { ...actorMetadata(ctx), ...(spaces.length === 1 ? { space_id: spaces[0] } : {}) };
  }

  return {
    async revokeApiKey(req: RevokeApiKeyRequest, ctx: CallContext): Promise<RevokeApiKeyResponse> {
      const metadata = await authorize(ctx, req.id, canRevokeKey);
      const revoke = { type: "RevokeKey" as const, now: clock.now() };
      await commands.handle(streamId("api_key", req.id), apiKeyDecider, revoke, metadata);
      return {};
    },

    async refreshApiKey(
      req: RefreshApiKeyRequest,
      ctx: CallContext,
    ): Promise<RefreshApiKeyResponse> {
      const metadata = await authorize(ctx, req.id, canRefreshKey);
      // The new secret is answered once: no copy of the answer is kept for a retry.
      withholdReply(ctx);
      const secret = generateArgusKey();
      const refresh = {
        type: "RefreshKey" as const,
        expiresAt: parseTime(req.expiresAt, "expires_at"),
        gracePeriodSeconds: req.gracePeriodSeconds,
        redactedKey: redactArgusKey(secret),
        now: clock.now(),
      };
      const row = await commands.transact(async (scope) => {
        const { events } = await scope.decide(
          streamId("api_key", req.id),
          apiKeyDecider,
          refresh,
          metadata,
        );
        const until = dataOf(events, "ApiKeyRefreshed").previous_secret_valid_until;
        // The old hash moves to the grace table (when there is a grace period) and the new one
        // replaces it, in the event's transaction: no moment without a key.
        if (until)
          await tracedQuery(
            scope.client,
            "keep previous api key secret",
            `insert into api_key_grace_secrets (key_hash, api_key_id, valid_until)
             select key_hash, api_key_id, $2 from api_key_secrets where api_key_id = $1`,
            [req.id, until],
          );
        await tracedQuery(
          scope.client,
          "replace api key secret",
          "update api_key_secrets set key_hash = $2 where api_key_id = $1",
          [req.id, hashApiKey(secret, pepper)],
        );
        return (await loadKey(scope.client, ctx.principal.accountId, req.id))!;
      });
      return { key: toApiKey(row), secret };
    },
  };
}
