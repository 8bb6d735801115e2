import { grantsFor } from "@argus/platform/testing";
import type * as grpc from "@grpc/grpc-js";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { AccountRole, KeyType } from "@argus/proto/common/v1";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import {
  callUnary,
  createChannel,
  createLogger,
  type Clock,
  type Principal,
} from "@argus/platform";
import pg from "pg";
import { freePort, startTestEnvironment, testCallKeys, uniqueName } from "@argus/testkit";
import { startIdentityForOthers } from "../../identity/test/identityForOthers.ts";
import { startCatalog } from "../src/index.ts";

/**
 * Identity and catalog in-process on one fresh database, as the catalog's resource tests need;
 * `clock` pins the catalog's time.
 */
export async function startCatalogStack(options: { clock?: Clock } = {}) {
  const { infra, db, env } = await startTestEnvironment("cat");
  const keys = testCallKeys();
  const identity = await startIdentityForOthers(env, keys);
  const { admin, organizationId, channel: identityChannel } = identity;
  const catalog = await startCatalog(
    {
      ...env,
      CATALOG_GRPC_PORT: String(await freePort()),
      CATALOG_PROBE_PORT: "0",
      ...keys.env("catalog"),
      ARGUS_SECRETS_KEY: "s".repeat(32),
      IDENTITY_GRPC_URL: identity.url,
    },
    createLogger({ service: "catalog-test", level: "warn" }),
    { clock: options.clock },
  );
  const channel: grpc.Client = createChannel(`127.0.0.1:${catalog.grpcPort}`);
  const nc: NatsConnection = await connect({ servers: infra.natsUrl });
  const pool = new pg.Pool({ connectionString: db.url, options: "-c search_path=catalog" });
  const { ARGUS_EVENTS_STREAM: stream, ARGUS_SUBJECT_ROOT: root } = env;

  const callIdentity = <Req, Res>(
    method: Parameters<typeof callUnary<Req, Res>>[1],
    req: Req,
    principal: Principal,
  ) =>
    callUnary(identityChannel, method, req, { credential: keys.caller(principal), requestId: "t" });

  return {
    admin,
    organizationId,
    databaseUrl: db.url,
    /** A pool on the catalog's schema (search_path=catalog), for looking behind the API. */
    pool,
    stream,
    root,
    nc,
    callIdentity,
    call: <Req, Res>(
      method: Parameters<typeof callUnary<Req, Res>>[1],
      req: Req,
      principal: Principal = admin,
    ) => callUnary(channel, method, req, { credential: keys.caller(principal), requestId: "t" }),
    /** A call on another service's own behalf (its call key), as the directories are asked. */
    asService: <Req, Res>(
      method: Parameters<typeof callUnary<Req, Res>>[1],
      req: Req,
      name: string,
    ) => callUnary(channel, method, req, { credential: keys.service(name), requestId: "t" }),
    async createSpace(name = uniqueName("space")): Promise<string> {
      const space = await callIdentity(
        IdentityServiceService.createSpace,
        { organizationId, name, description: "", isPrivate: false },
        admin,
      );
      return space.id;
    },
    /** A non-admin holding exactly these permissions per space (no account role). */
    member(perms: Record<string, string[]>): Principal {
      return {
        ...admin,
        accountRole: AccountRole.ACCOUNT_ROLE_UNSPECIFIED,
        keyType: KeyType.KEY_TYPE_USER,
        ...grantsFor(perms),
      };
    },
    /** The last message stored in JetStream under `subject`, read through the JetStream API. */
    async lastStored(subject: string): Promise<{ subject: string; data: unknown }> {
      const reply = await nc.request(
        `$JS.API.STREAM.MSG.GET.${stream}`,
        JSON.stringify({ last_by_subj: subject }),
        { timeout: 2000 },
      );
      const body = reply.json<{ message?: { subject: string; data: string } }>();
      if (!body.message) throw new Error(`no message on ${subject}: ${reply.string()}`);
      return {
        subject: body.message.subject,
        data: JSON.parse(Buffer.from(body.message.data, "base64").toString("utf8")) as unknown,
      };
    },
    async stop() {
      await pool.end();
      await nc.drain();
      channel.close();
      await catalog.stop();
      await identity.stop();
      // Let the pools' sockets finish closing: a forced drop would kill them mid-close.
      await new Promise((r) => setTimeout(r, 200));
      await db.drop();
    },
  };
}

export type CatalogStack = Awaited<ReturnType<typeof startCatalogStack>>;

export { problemOf } from "@argus/testkit";
