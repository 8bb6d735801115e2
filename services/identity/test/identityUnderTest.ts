import type * as grpc from "@grpc/grpc-js";
import pg from "pg";
import {
  callKeyEnv,
  callUnary,
  createChannel,
  createLogger,
  fromGrpcError,
  generateCallKeys,
  parsePrivateKey,
  principalSigner,
  serviceCredential,
  type PrincipalSigner,
  type Principal,
} from "@argus/platform";
import type { StartOptions } from "@argus/service-host";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import {
  createTestDatabase,
  freePort,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startIdentity, type RunningIdentity } from "../src/index.ts";

/** The key pairs of the processes identity trusts (the gateway, the catalog), fresh per run. */
export const KEYS = generateCallKeys();
/** The gateway's signer, the only one whose principals identity accepts. */
const GATEWAY_SIGNER = principalSigner(parsePrivateKey(KEYS.gateway!.privateKey));
export const PEPPER = "q".repeat(32);

type Method<Req, Res> = Parameters<typeof callUnary<Req, Res>>[1];

export interface IdentityUnderTest {
  db: TestDatabase;
  /** identity's schema, for what a test looks at beneath the API. */
  sql: pg.Pool;
  /** The initial admin, authenticated with the initial key. */
  admin: Principal;
  /** The initial organization. */
  organizationId: string;
  readonly channel: grpc.Client;
  /** A call for `principal` (default: the admin), signed by `signer` (default: the gateway's). */
  call<Req, Res>(
    method: Method<Req, Res>,
    req: Req,
    principal?: Principal,
    signer?: PrincipalSigner,
  ): Promise<Res>;
  /** A call a process makes on its own behalf (the gateway's Authenticate, the catalog's lookups). */
  callAs<Req, Res>(service: string, method: Method<Req, Res>, req: Req): Promise<Res>;
  /** Stops the process and starts it again on the same database and environment. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** One identity process on its own database, initialized with `apiKey` as its admin's key. */
export async function startIdentityUnderTest(
  name: string,
  apiKey: string,
  options?: StartOptions,
): Promise<IdentityUnderTest> {
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    IDENTITY_GRPC_PORT: String(await freePort()),
    IDENTITY_PROBE_PORT: "0",
    ...callKeyEnv("identity", KEYS),
    ARGUS_API_KEY_PEPPER: PEPPER,
    ARGUS_INIT_API_KEY: apiKey,
    ARGUS_EVENTS_STREAM: uniqueName(name.toUpperCase()),
    ARGUS_SUBJECT_ROOT: uniqueName(name),
  };
  const logger = createLogger({ service: `${name}-test`, level: "warn" });
  let identity: RunningIdentity = await startIdentity(env, logger, options);
  let channel: grpc.Client = createChannel(`127.0.0.1:${identity.grpcPort}`);
  const sql = new pg.Pool({ connectionString: db.url, options: "-c search_path=identity", max: 2 });
  const t: IdentityUnderTest = {
    db,
    sql,
    admin: undefined as unknown as Principal,
    organizationId: "",
    get channel() {
      return channel;
    },
    call(method, req, principal = t.admin, signer = GATEWAY_SIGNER) {
      return callUnary(channel, method, req, {
        credential: signer.sign(principal),
        requestId: "t",
      });
    },
    callAs(service, method, req) {
      const key = parsePrivateKey(KEYS[service]!.privateKey);
      return callUnary(channel, method, req, {
        credential: serviceCredential(service, key),
        requestId: "t",
      });
    },
    async restart() {
      await identity.stop();
      identity = await startIdentity(env, logger, options);
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
  const auth = await t.callAs("gateway", IdentityServiceService.authenticate, { apiKey });
  t.admin = auth.principal!;
  const orgs = await t.call(IdentityServiceService.listOrganizations, {
    page: { limit: 1, after: "" },
    name: "",
  });
  t.organizationId = orgs.organizations[0]!.id;
  return t;
}

/** "ok", or the problem type the call failed with. */
export const problemOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "ok",
    (err: unknown) => fromGrpcError(err).type,
  );
