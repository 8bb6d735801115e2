import type * as grpc from "@grpc/grpc-js";
import pg from "pg";
import {
  callUnary,
  createChannel,
  createLogger,
  fromGrpcError,
  predefinedRole,
  type Principal,
} from "@argus/platform";
import { grantsFor } from "@argus/platform/testing";
import { AccountRole, KeyType } from "@argus/proto/common/v1";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import {
  createTestDatabase,
  freePort,
  testCallKeys,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startCatalog } from "../../catalog/src/index.ts";
import { startIdentity, type RunningIdentity } from "../../identity/src/index.ts";
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
   * An account member (signed like the gateway would) holding exactly these permissions per
   * space, or a predefined space role by name (e.g. "READ_ONLY"); `extra` overrides fields.
   */
  member(
    perms?: Record<string, readonly string[] | "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR">,
    extra?: Partial<Principal>,
  ): Principal;
  stop(): Promise<void>;
}

export async function startTracingUnderTest(
  env: Record<string, string> = {},
): Promise<TracingUnderTest> {
  const keys = testCallKeys();
  const apiKey = `ak-int-${"t".repeat(40)}`;
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  const [catalogPort, tracingPort] = [await freePort(), await freePort()];
  const common = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    ARGUS_EVENTS_STREAM: uniqueName("TR"),
    ARGUS_SUBJECT_ROOT: uniqueName("tr"),
    CATALOG_GRPC_URL: `127.0.0.1:${catalogPort}`,
    TRACING_GRPC_URL: `127.0.0.1:${tracingPort}`,
  };
  const identity: RunningIdentity = await startIdentity(
    {
      ...common,
      IDENTITY_GRPC_PORT: String(await freePort()),
      IDENTITY_PROBE_PORT: "0",
      ...keys.env("identity"),
      ARGUS_API_KEY_PEPPER: "q".repeat(32),
      ARGUS_INIT_API_KEY: apiKey,
    },
    createLogger({ service: "identity-test", level: "warn" }),
  );
  const identityUrl = `127.0.0.1:${identity.grpcPort}`;
  const identityChannel = createChannel(identityUrl);
  const admin = (
    await callUnary(
      identityChannel,
      IdentityServiceService.authenticate,
      { apiKey },
      { credential: keys.service("gateway"), requestId: "t" },
    )
  ).principal!;
  const spaces = await callUnary(
    identityChannel,
    IdentityServiceService.listSpaces,
    { page: { limit: 10, after: "" }, name: "", organizationId: "" },
    { credential: keys.caller(admin), requestId: "t" },
  );
  const catalog = await startCatalog(
    {
      ...common,
      CATALOG_GRPC_PORT: String(catalogPort),
      CATALOG_PROBE_PORT: "0",
      ...keys.env("catalog"),
      IDENTITY_GRPC_URL: identityUrl,
    },
    createLogger({ service: "catalog-test", level: "warn" }),
  );
  const tracing: Running = await startTracing(
    {
      ...common,
      TRACING_GRPC_PORT: String(tracingPort),
      TRACING_PROBE_PORT: "0",
      ...keys.env("tracing"),
      IDENTITY_GRPC_URL: identityUrl,
      ...env,
    },
    createLogger({ service: "tracing-test", level: "warn" }),
  );
  const catalogChannel = createChannel(`127.0.0.1:${catalogPort}`);
  const channel = createChannel(`127.0.0.1:${tracingPort}`);
  const callOn: TracingUnderTest["callOn"] = (ch, method, req, p = admin) =>
    callUnary(ch, method, req, { credential: keys.caller(p), requestId: "t" });
  const organizationId = spaces.spaces[0]!.organizationId;
  const pool = new pg.Pool({ connectionString: db.url, options: "-c search_path=tracing", max: 2 });
  return {
    db,
    admin,
    spaceId: spaces.spaces[0]!.id,
    organizationId,
    natsUrl: infra.natsUrl,
    subjectRoot: common.ARGUS_SUBJECT_ROOT,
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
      identityChannel.close();
      await tracing.stop();
      await catalog.stop();
      await identity.stop();
      await db.drop();
    },
  };
}

/** The problem type a call fails with, or "ok". */
export async function problemOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return fromGrpcError(err).type;
  }
}

/** The problem type and detail a call fails with, or "ok" and "". */
export async function problemWith(p: Promise<unknown>): Promise<{ type: string; detail: string }> {
  try {
    await p;
    return { type: "ok", detail: "" };
  } catch (err) {
    const e = fromGrpcError(err);
    return { type: e.type, detail: e.message };
  }
}
