import type * as grpc from "@grpc/grpc-js";
import pg from "pg";
import {
  GATEWAY_PRINCIPAL,
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
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startIdentity, type RunningIdentity } from "../src/index.ts";

export const SECRET = "p".repeat(32);
export const PEPPER = "q".repeat(32);

type Method<Req, Res> = Parameters<typeof callUnary<Req, Res>>[1];

export interface IdentityUnderTest {
  db: TestDatabase;
  /** identity's schema, for what a test looks at beneath the API. */
  sql: pg.Pool;
  /** The initial admin, authenticated with the initial key. */
  admin: Principal;
  readonly channel: grpc.Client;
  call<Req, Res>(
    method: Method<Req, Res>,
    req: Req,
    principal?: Principal,
    secret?: string,
  ): Promise<Res>;
  /** Stops the process and starts it again on the same database and environment. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** One identity process on its own database, initialized with `apiKey` as its admin's key. */
export async function startIdentityUnderTest(
  name: string,
  apiKey: string,
): Promise<IdentityUnderTest> {
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    IDENTITY_GRPC_PORT: String(await freePort()),
    IDENTITY_PROBE_PORT: "0",
    ARGUS_PRINCIPAL_SECRET: SECRET,
    ARGUS_API_KEY_PEPPER: PEPPER,
    ARGUS_INIT_API_KEY: apiKey,
    ARGUS_EVENTS_STREAM: uniqueName(name.toUpperCase()),
    ARGUS_SUBJECT_ROOT: uniqueName(name),
  };
  const logger = createLogger({ service: `${name}-test`, level: "warn" });
  let identity: RunningIdentity = await startIdentity(env, logger);
  let channel: grpc.Client = createChannel(`127.0.0.1:${identity.grpcPort}`);
  const sql = new pg.Pool({ connectionString: db.url, options: "-c search_path=identity", max: 2 });
  const t: IdentityUnderTest = {
    db,
    sql,
    admin: undefined as unknown as Principal,
    get channel() {
      return channel;
    },
    call(method, req, principal = t.admin, secret = SECRET) {
      return callUnary(channel, method, req, {
        principal,
        principalSecret: secret,
        requestId: "t",
      });
    },
    async restart() {
      await identity.stop();
      identity = await startIdentity(env, logger);
      channel.close();
      channel = createChannel(`127.0.0.1:${identity.grpcPort}`);
    },
    async stop() {
      channel.close();
      await sql.end();
      await identity.stop();
      await db.drop();
    },
  };
  const auth = await t.call(IdentityServiceService.authenticate, { apiKey }, GATEWAY_PRINCIPAL);
  t.admin = auth.principal!;
  return t;
}

/** "ok", or the problem type the call failed with. */
export const problemOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "ok",
    (err: unknown) => fromGrpcError(err).type,
  );
