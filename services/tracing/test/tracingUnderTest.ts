import type * as grpc from "@grpc/grpc-js";
import {
  callUnary,
  createChannel,
  createLogger,
  fromGrpcError,
  type Principal,
} from "@argus/platform";
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
  return {
    db,
    admin,
    spaceId: spaces.spaces[0]!.id,
    keys,
    identity: identityChannel,
    catalog: catalogChannel,
    tracing: channel,
    call: (method, req, p) => callOn(channel, method, req, p),
    callOn,
    async stop() {
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
