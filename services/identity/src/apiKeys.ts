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
import { tracedQuery, type EventStore, type EventStoreTransaction } from "@argus/eventstore";
import type {
  CreateApiKeyRequest,
  CreateApiKeyResponse,
  ListApiKeysRequest,
  ListApiKeysResponse,
  RefreshApiKeyRequest,
  RefreshApiKeyResponse,
  RevokeApiKeyRequest,
  RevokeApiKeyResponse,
} from "@argus/proto/identity/v1/api_keys";
import type { Pool } from "pg";
import { hashApiKey } from "./apiKeySecret.ts";
import { canReadKey, canRefreshKey, canRevokeKey, type KeyFacts } from "./apiKeysAccess.ts";
import {
  decideApiKey,
  initialApiKeyState,
  type ApiKeyCommand,
  type ApiKeyEvent,
} from "./apiKeysDecide.ts";
import { generateArgusKey, redactArgusKey } from "./apiKeysFormat.ts";
import {
  KEY_COLUMNS,
  adminSpaces,
  loadKeyForUpdate,
  toApiKey,
  type KeyRow,
} from "./apiKeysStore.ts";
import { project } from "./projection.ts";
import { resolveAssignments } from "./serviceAccountsAssign.ts";

interface Deps {
  pool: Pool;
  store: EventStore;
  pepper: string;
}

function parseTime(value: string, field: string): Date | null {
  if (value === "") return null;
  const t = new Date(value);
  if (Number.isNaN(t.getTime()))
    throw new DomainError("unprocessable-entity", `${field} is not a date-time`);
  return t;
}

/** Appends each event to its stream and projects them, all in the caller's transaction. */
async function appendAll(
  tx: EventStoreTransaction,
  events: readonly ApiKeyEvent[],
  metadata: Record<string, unknown>,
  // New streams are created at 0, so an id collision can never append to someone else's;
  // changes to an existing key are serialized by its row lock instead.
  expectedVersion: 0 | "any",
): Promise<void> {
  const streams = [...new Set(events.map((e) => e.streamId))];
  for (const s of streams) {
    const own = events.filter((e) => e.streamId === s);
    await tx.append(
      s,
      expectedVersion,
      own.map((e) => ({ type: e.type, data: e.data, metadata })),
    );
  }
  await project(tx.client, events);
}

function facts(k: KeyRow & { bound_space_ids: string[] }): KeyFacts {
  return {
    keyType: k.key_type,
    accountId: k.account_id,
    createdByUserId: k.created_by_user_id,
    boundSpaceIds: k.bound_space_ids,
  };
}

export function apiKeyHandlers(deps: Deps) {
  const { pool, store, pepper } = deps;

  /** Loads, authorizes and decides under a row lock, so concurrent changes serialize. */
  async function changeKey(
    ctx: CallContext,
    id: string,
    allowed: typeof canRevokeKey,
    command: (k: KeyRow) => ApiKeyCommand,
    onDecided: (tx: EventStoreTransaction, events: ApiKeyEvent[]) => Promise<void> = async () => {},
  ): Promise<KeyRow> {
    const p = ctx.principal;
    return store.transaction(async (tx) => {
      const key = await loadKeyForUpdate(tx.client, p.accountId, id);
      if (!key) throw notFound("API key");
      const admins = await adminSpaces(tx.client, p, key.bound_space_ids);
      // Without read access the key's existence stays hidden (spec endpoint 4, rule 5).
      if (!canReadKey(p, facts(key), admins)) throw notFound("API key");
      if (!allowed(p, facts(key), admins))
        throw new DomainError("access-forbidden", "not allowed to change this API key");
      const events = decideApiKey(command(key), {
        exists: true,
        status: key.status,
        expiresAt: key.expires_at,
      });
      await onDecided(tx, events);
      if (events.length > 0) {
        await appendAll(
          tx,
          events,
          {
            ...actorMetadata(ctx),
            ...(key.bound_space_ids.length === 1 ? { space_id: key.bound_space_ids[0] } : {}),
          },
          "any",
        );
      }
      const after = await loadKeyForUpdate(tx.client, p.accountId, id);
      return after!;
    });
  }

  return {
    async createApiKey(req: CreateApiKeyRequest, ctx: CallContext): Promise<CreateApiKeyResponse> {
      const p = ctx.principal;
      // A key records the user who created it; a service account cannot create keys.
      if (!p.userId)
        throw new DomainError("access-forbidden", "API keys can only be created with a USER key");
      if (req.keyType !== "USER" && req.keyType !== "SERVICE")
        throw new DomainError("invalid-request", "key_type must be USER or SERVICE");
      if (req.keyType === "USER" && req.organizations.length > 0)
        throw new DomainError("unprocessable-entity", "organizations apply to SERVICE keys only");
      if (req.keyType === "SERVICE" && req.accountRole !== "" && req.accountRole !== "MEMBER")
        throw new DomainError(
          "unprocessable-entity",
          "service accounts act only through their space and organization roles: account_role must be MEMBER",
        );
      const secret = generateArgusKey();
      const id = uuidv7();
      const serviceAccountId = uuidv7();
      const base = {
        id,
        accountId: p.accountId,
        createdByUserId: p.userId,
        name: req.name,
        description: req.description,
        expiresAt: parseTime(req.expiresAt, "expires_at"),
        redactedKey: redactArgusKey(secret),
        now: new Date(),
      };
      const result = await store.transaction(async (tx) => {
        const assigned =
          req.keyType === "SERVICE"
            ? await resolveAssignments(tx.client, p, req.organizations)
            : undefined;
        const events = decideApiKey(
          assigned
            ? {
                ...base,
                type: "CreateServiceKey",
                serviceAccountId,
                serviceAccountName: req.name,
                grants: assigned.grants,
              }
            : { ...base, type: "CreateUserKey" },
          initialApiKeyState,
        );
        await appendAll(tx, events, actorMetadata(ctx), 0);
        // The secret's hash goes to its own table in the same transaction, never to an event.
        await tx.client.query(
          "insert into api_key_secrets (api_key_id, key_hash) values ($1, $2)",
          [id, hashApiKey(secret, pepper)],
        );
        const row = await loadKeyForUpdate(tx.client, p.accountId, id);
        return { row: row!, assigned };
      });
      return {
        key: toApiKey(result.row),
        secret,
        botUser: result.assigned
          ? {
              id: serviceAccountId,
              name: req.name,
              accountRole: "MEMBER",
              organizations: result.assigned.organizations,
            }
          : undefined,
      };
    },

    async listApiKeys(req: ListApiKeysRequest, ctx: CallContext): Promise<ListApiKeysResponse> {
      const p = ctx.principal;
      const status = req.status || "ACTIVE";
      // With a space, service keys are meant (spec endpoint 3, rule 1); without, USER keys.
      const keyType = req.keyType || (req.spaceId ? "SERVICE" : "USER");
      if (keyType === "USER" && req.spaceId)
        throw new DomainError(
          "invalid-request",
          "space_id filters SERVICE keys; USER keys have no space",
        );
      let creator: string | null = req.userId || null;
      let spaces: string[] | null = null; // SERVICE keys: bound to one of these spaces
      if (req.spaceId) {
        const space = await tracedQuery<{ is_private: boolean }>(
          pool,
          "api keys space",
          "select is_private from spaces where id = $1 and account_id = $2",
          [req.spaceId, p.accountId],
        );
        const s = space.rows[0];
        if (!s || (s.is_private && !isAccountAdmin(p) && !(req.spaceId in p.spacePermissions)))
          throw notFound("space");
        const isSpaceAdmin = (await adminSpaces(pool, p, [req.spaceId])).has(req.spaceId);
        if (!isSpaceAdmin && !hasSpacePermission(p, req.spaceId, "SERVICE_KEY_READ"))
          throw new DomainError(
            "access-forbidden",
            "missing permission SERVICE_KEY_READ in this space",
          );
        spaces = [req.spaceId];
      } else if (keyType === "USER") {
        // Another user's keys are for account admins only (rule 3); by default one's own.
        if (creator && creator !== p.userId && !isAccountAdmin(p))
          throw new DomainError(
            "access-forbidden",
            "only account admins may list another user's keys",
          );
        creator ??= p.userId || "00000000-0000-0000-0000-000000000000";
      } else if (!isAccountAdmin(p)) {
        // SERVICE keys of every space where the caller may read them.
        spaces = Object.entries(p.spacePermissions)
          .filter(([, set]) => set.permissions.includes("SERVICE_KEY_READ"))
          .map(([id]) => id);
      }
      const res = await tracedQuery<KeyRow>(
        pool,
        "list api keys",
        `select ${KEY_COLUMNS} from api_keys k
          where k.account_id = $1 and k.key_type = $2 and k.status = $3
            and ($4::uuid is null or k.created_by_user_id = $4)
            and ($5::uuid[] is null or exists (
                  select 1 from role_bindings rb
                   where rb.subject_type = 'SERVICE_ACCOUNT' and rb.subject_id = k.service_account_id
                     and rb.resource_type = 'SPACE' and rb.resource_id = any($5::uuid[])))
            and ($6::uuid is null or k.id < $6)
          order by k.id desc
          limit $7`,
        [
          p.accountId,
          keyType,
          status,
          creator,
          spaces,
          req.page?.after || null,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { apiKeys: items.map(toApiKey), page: { nextAfter } };
    },

    async revokeApiKey(req: RevokeApiKeyRequest, ctx: CallContext): Promise<RevokeApiKeyResponse> {
      await changeKey(ctx, req.id, canRevokeKey, () => ({
        type: "RevokeKey",
        id: req.id,
        now: new Date(),
      }));
      return {};
    },

    async refreshApiKey(
      req: RefreshApiKeyRequest,
      ctx: CallContext,
    ): Promise<RefreshApiKeyResponse> {
      const secret = generateArgusKey();
      const key = await changeKey(
        ctx,
        req.id,
        canRefreshKey,
        () => ({
          type: "RefreshKey",
          id: req.id,
          expiresAt: parseTime(req.expiresAt, "expires_at"),
          gracePeriodSeconds: req.gracePeriodSeconds,
          redactedKey: redactArgusKey(secret),
          now: new Date(),
        }),
        async (tx, events) => {
          const until = events[0]?.data.previous_secret_valid_until;
          // The old hash moves to the grace table (when there is a grace period) and the new
          // one replaces it, in the same transaction as the event: no moment without a key.
          if (typeof until === "string") {
            await tx.client.query(
              `insert into api_key_grace_secrets (key_hash, api_key_id, valid_until)
               select key_hash, api_key_id, $2 from api_key_secrets where api_key_id = $1`,
              [req.id, until],
            );
          }
          await tx.client.query("update api_key_secrets set key_hash = $2 where api_key_id = $1", [
            req.id,
            hashApiKey(secret, pepper),
          ]);
        },
      );
      return { key: toApiKey(key), secret };
    },
  };
}
