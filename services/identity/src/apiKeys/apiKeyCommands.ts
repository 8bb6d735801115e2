import {
  DomainError,
  actorMetadata,
  isAccountAdmin,
  uuidv7,
  type CallContext,
  withholdReply,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type { CreateApiKeyRequest, CreateApiKeyResponse } from "@argus/proto/identity/v1/api_keys";
import { streamId } from "@argus/contracts";
import { apiKeyDecider, type KeyFields } from "./apiKeyDecider.ts";
import { redactArgusKey } from "./apiKeyFormat.ts";
import { hashApiKey } from "../shared/secretHash.ts";
import { serviceAccountDecider } from "./serviceAccountDecider.ts";
import { toApiKey } from "./apiKeyRows.ts";
import { loadKey } from "./apiKeyReads.ts";
import type { IdentityDeps } from "../deps.ts";
import { hold } from "../shared/holds.ts";
import { generateArgusKey } from "../shared/newSecrets.ts";
import { resolveAssignments, type ResolvedAssignments } from "./serviceKeyGrants.ts";

export function parseTime(value: string, field: string): Date | null {
  if (value === "") return null;
  const t = new Date(value);
  if (Number.isNaN(t.getTime()))
    throw new DomainError("unprocessable-entity", `${field} is not a date-time`);
  return t;
}

function requireCreatable(req: CreateApiKeyRequest, ctx: CallContext): void {
  // A key records the user who created it; a service account cannot create keys.
  if (!ctx.principal.userId)
    throw new DomainError("access-forbidden", "API keys can only be created with a USER key");
  if (req.keyType !== "USER" && req.keyType !== "SERVICE")
    throw new DomainError("invalid-request", "key_type must be USER or SERVICE");
  if (req.keyType === "USER" && req.organizations.length > 0)
    throw new DomainError("unprocessable-entity", "organizations apply to SERVICE keys only");
  // As the public API documents: these two account roles are not valid for service keys (400).
  if (req.keyType === "SERVICE" && ["MEMBER_UI_ONLY", "ANNOTATOR"].includes(req.accountRole))
    throw new DomainError(
      "invalid-request",
      `the ${req.accountRole} account role is not valid for service keys`,
    );
  if (req.keyType === "SERVICE" && !["", "MEMBER", "ADMIN"].includes(req.accountRole))
    throw new DomainError(
      "invalid-request",
      "a service key's account_role is MEMBER or ADMIN (custom roles are not supported)",
    );
  // As the public API: the key's account role is at or below the caller's own.
  if (req.keyType === "SERVICE" && req.accountRole === "ADMIN" && !isAccountAdmin(ctx.principal))
    throw new DomainError(
      "access-forbidden",
      "only an account admin creates a service key with the ADMIN account role",
    );
}

export function apiKeyCreation({
  commands,
  pepper,
  clock,
}: Pick<IdentityDeps, "commands" | "pepper" | "clock">) {
  return {
    async createApiKey(req: CreateApiKeyRequest, ctx: CallContext): Promise<CreateApiKeyResponse> {
      requireCreatable(req, ctx);
      // The secret is answered once: no copy of the answer is kept for a retry.
      withholdReply(ctx);
      const p = ctx.principal;
      const secret = generateArgusKey();
      const id = uuidv7();
      const serviceAccountId = uuidv7();
      const now = clock.now();
      const metadata = actorMetadata(ctx);
      const accountRole: "ADMIN" | "MEMBER" = req.accountRole === "ADMIN" ? "ADMIN" : "MEMBER";
      const result = await commands.transact(async (scope) => {
        const fields: KeyFields = {
          id,
          accountId: p.accountId,
          createdByUserId: p.userId,
          // Held until commit: deleting the user meanwhile waits, then revokes this key too.
          creatorActive: await hold(scope.client, "user", p.userId, p.accountId),
          name: req.name,
          description: req.description,
          expiresAt: parseTime(req.expiresAt, "expires_at"),
          redactedKey: redactArgusKey(secret),
          now,
        };
        const keyStream = streamId("api_key", id);
        let assigned: ResolvedAssignments | undefined;
        if (req.keyType === "USER") {
          await scope.decide(
            keyStream,
            apiKeyDecider,
            { type: "CreateUserKey", ...fields },
            metadata,
          );
        } else {
          // The service account and its grants first: the key's row references the account.
          assigned = await resolveAssignments(scope.client, p, req.organizations);
          const account = {
            type: "CreateServiceAccount" as const,
            id: serviceAccountId,
            accountId: p.accountId,
            name: req.name,
            createdByUserId: p.userId,
            accountRole,
            grants: assigned.grants,
            now,
          };
          await scope.decide(
            streamId("service_account", serviceAccountId),
            serviceAccountDecider,
            account,
            metadata,
          );
          const key = { type: "CreateServiceKey" as const, serviceAccountId, ...fields };
          await scope.decide(keyStream, apiKeyDecider, key, metadata);
        }
        // The secret's hash goes to its own table in the same transaction, never to an event.
        await tracedQuery(
          scope.client,
          "store api key secret",
          "insert into api_key_secrets (api_key_id, key_hash) values ($1, $2)",
          [id, hashApiKey(secret, pepper)],
        );
        return { row: (await loadKey(scope.client, p.accountId, id))!, assigned };
      });
      return {
        key: toApiKey(result.row),
        secret,
        botUser: result.assigned && {
          id: serviceAccountId,
          name: req.name,
          accountRole,
          organizations: result.assigned.organizations,
        },
      };
    },
  };
}
