import type * as grpc from "@grpc/grpc-js";
import pg from "pg";
import {
  callUnary,
  createChannel,
  createLogger,
  predefinedRole,
  type Clock,
  type Principal,
} from "@argus/platform";
import { grantsFor } from "@argus/platform/testing";
import { AccountRole, KeyType } from "@argus/proto/common/v1";
import { AnnotationConfigServiceService } from "@argus/proto/catalog/v1/annotations";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import {
  freePort,
  startTestEnvironment,
  testCallKeys,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startCatalog } from "../../catalog/src/index.ts";
import { startIdentityForOthers } from "../../identity/test/identityForOthers.ts";
import { startTracing } from "../src/index.ts";

type Running = Awaited<ReturnType<typeof startTracing>>;

/** Identity, the catalog and the tracing service in-process, on one fresh database. */
export interface TracingUnderTest {
  db: TestDatabase;
  admin: Principal;
  spaceId: string;
  /** The organization of `spaceId`. */
  organizationId: string;
  /** NATS and the subject root events are published under (`<root>.tracing.>`). */
  natsUrl: string;
  subjectRoot: string;
  /** The tracing service's environment: another replica started with it shares its database. */
  env: Record<string, string>;
  /** A pool on the tracing service's schema (search_path=tracing), for looking behind the API. */
  pool: pg.Pool;
  keys: ReturnType<typeof testCallKeys>;
  identity: grpc.Client;
  catalog: grpc.Client;
  tracing: grpc.Client;
  /** A call to the tracing service as `p` (default: the account admin). */
  call<Req, Res>(
    method: Parameters<typeof callUnary<Req, Res>>[1],
    req: Req,
    p?: Principal,
  ): Promise<Res>;
  /** A call to any of them as `p`. */
  callOn<Req, Res>(
    channel: grpc.Client,
    method: Parameters<typeof callUnary<Req, Res>>[1],
    req: Req,
    p?: Principal,
  ): Promise<Res>;
  /** A new space of the admin's organization. */
  createSpace(isPrivate?: boolean): Promise<string>;
  /**
   * The FREEFORM annotation config "notes" in a space (default: `spaceId`): the catalog's config
   * an annotation of that name needs.
   */
  createNotesConfig(spaceId?: string): Promise<void>;
  /**
   * An account member (signed like the gateway would) holding exactly these permissions per
   * space, or a predefined space role by name (e.g. "READ_ONLY"); `extra` overrides fields.
   */
  member(
    perms?: Record<string, readonly string[] | "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR">,
    extra?: Partial<Principal>,
  ): Principal;
  stop(): Promise<void>;
}

/** `env` adds to the tracing service's environment; `clock` pins its time. */
export async function startTracingUnderTest(
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<TracingUnderTest> {
  const keys = testCallKeys();
  const { infra, db, env: shared } = await startTestEnvironment("tr");
  const [catalogPort, tracingPort] = [await freePort(), await freePort()];
  const common = {
    ...shared,
    CATALOG_GRPC_URL: `127.0.0.1:${catalogPort}`,
    TRACING_GRPC_URL: `127.0.0.1:${tracingPort}`,
  };
  const identity = await startIdentityForOthers(common, keys);
  const { admin, url: identityUrl, channel: identityChannel } = identity;
  const catalog = await startCatalog(
    {
      ...common,
      CATALOG_GRPC_PORT: String(catalogPort),
      CATALOG_PROBE_PORT: "0",
      ...keys.env("catalog"),
      ARGUS_SECRETS_KEY: "s".repeat(32),
      IDENTITY_GRPC_URL: identityUrl,
    },
    createLogger({ service: "catalog-test", level: "warn" }),
  );
  const tracingEnv: Record<string, string> = {
    ...common,
    TRACING_GRPC_PORT: String(tracingPort),
    TRACING_PROBE_PORT: "0",
    ...keys.env("tracing"),
    IDENTITY_GRPC_URL: identityUrl,
    ...env,
  };
  const tracing: Running = await startTracing(
    tracingEnv,
    createLogger({ service: "tracing-test", level: "warn" }),
    options,
  );
  const catalogChannel = createChannel(`127.0.0.1:${catalogPort}`);
  const channel = createChannel(`127.0.0.1:${tracingPort}`);
  const { organizationId } = identity;
  const callOn: TracingUnderTest["callOn"] = (ch, method, req, p = admin) =>
    callUnary(ch, method, req, { credential: keys.caller(p), requestId: "t" });
  const pool = new pg.Pool({ connectionString: db.url, options: "-c search_path=tracing", max: 2 });
  return {
    db,
    admin,
    spaceId: identity.spaceId,
    organizationId: identity.organizationId,
    natsUrl: infra.natsUrl,
    subjectRoot: common.ARGUS_SUBJECT_ROOT,
    env: tracingEnv,
    pool,
    keys,
    identity: identityChannel,
    catalog: catalogChannel,
    tracing: channel,
    call: (method, req, p) => callOn(channel, method, req, p),
    callOn,
    async createSpace(isPrivate = false) {
      const space = await callOn(identityChannel, IdentityServiceService.createSpace, {
        organizationId,
        name: uniqueName("space"),
        description: "",
        isPrivate,
      });
      return space.id;
    },
    async createNotesConfig(spaceId = identity.spaceId) {
      await callOn(catalogChannel, AnnotationConfigServiceService.createAnnotationConfig, {
        spaceId,
        name: "notes",
        type: "FREEFORM",
        values: [],
        optimizationDirection: "",
      });
    },
    member(perms = {}, extra = {}) {
      const custom: Record<string, readonly string[]> = {};
      const predefined: { roleId: string; resourceIds: string[] }[] = [];
      for (const [space, p] of Object.entries(perms)) {
        if (typeof p === "string")
          predefined.push({ roleId: predefinedRole(p).id, resourceIds: [space] });
        else custom[space] = p;
      }
      const grants = grantsFor(custom);
      return {
        ...admin,
        accountRole: AccountRole.ACCOUNT_ROLE_MEMBER,
        keyType: KeyType.KEY_TYPE_USER,
        organizationIds: [organizationId],
        adminOrganizationIds: [],
        projectGrants: [],
        ...grants,
        spaceGrants: [...grants.spaceGrants, ...predefined],
        ...extra,
      };
    },
    async stop() {
      await pool.end();
      channel.close();
      catalogChannel.close();
      await tracing.stop();
      await catalog.stop();
      await identity.stop();
      await db.drop();
    },
  };
}

export { problemOf, problemWith } from "@argus/testkit";
