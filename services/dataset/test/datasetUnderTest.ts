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
import { startIdentity, type RunningIdentity } from "../../identity/src/index.ts";
import { startDataset } from "../src/index.ts";

type Running = Awaited<ReturnType<typeof startDataset>>;

/** Identity and the dataset service in-process, on one fresh database, as the account admin. */
export interface DatasetUnderTest {
  db: TestDatabase;
  channel: grpc.Client;
  admin: Principal;
  spaceId: string;
  call<Req, Res>(
    method: Parameters<typeof callUnary<Req, Res>>[1],
    req: Req,
    p?: Principal,
  ): Promise<Res>;
  stop(): Promise<void>;
}

export async function startDatasetUnderTest(): Promise<DatasetUnderTest> {
  const keys = testCallKeys();
  const apiKey = `ak-int-${"d".repeat(40)}`;
  const root = uniqueName("ds");
  const stream = uniqueName("DS");
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  const common = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    ARGUS_EVENTS_STREAM: stream,
    ARGUS_SUBJECT_ROOT: root,
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
  const identityChannel = createChannel(`127.0.0.1:${identity.grpcPort}`);
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
  const dataset: Running = await startDataset(
    {
      ...common,
      DATASET_GRPC_PORT: String(await freePort()),
      DATASET_PROBE_PORT: "0",
      ...keys.env("dataset"),
      IDENTITY_GRPC_URL: `127.0.0.1:${identity.grpcPort}`,
    },
    createLogger({ service: "dataset-test", level: "warn" }),
  );
  const channel = createChannel(`127.0.0.1:${dataset.grpcPort}`);
  return {
    db,
    channel,
    admin,
    spaceId: spaces.spaces[0]!.id,
    call: (method, req, p = admin) =>
      callUnary(channel, method, req, { credential: keys.caller(p), requestId: "t" }),
    async stop() {
      channel.close();
      identityChannel.close();
      await dataset.stop();
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
