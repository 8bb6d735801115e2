import type * as grpc from "@grpc/grpc-js";
import {
  callUnary,
  createChannel,
  createLogger,
  type CallCredential,
  type Clock,
  type Principal,
} from "@argus/platform";
import {
  freePort,
  startTestEnvironment,
  testCallKeys,
  type TestCallKeys,
  type TestDatabase,
} from "@argus/testkit";
import { DatasetServiceService } from "@argus/proto/dataset/v1/dataset";
import { startIdentityForOthers } from "../../identity/test/identityForOthers.ts";
import { startDataset } from "../src/index.ts";

type Running = Awaited<ReturnType<typeof startDataset>>;

/** Identity and the dataset service in-process, on one fresh database, as the account admin. */
export interface DatasetUnderTest {
  db: TestDatabase;
  channel: grpc.Client;
  admin: Principal;
  spaceId: string;
  /** The database, NATS and stream names, for another service started beside these. */
  env: Record<string, string>;
  keys: TestCallKeys;
  identityUrl: string;
  datasetUrl: string;
  call<Req, Res>(
    method: Parameters<typeof callUnary<Req, Res>>[1],
    req: Req,
    p?: Principal,
  ): Promise<Res>;
  /** What a call for `p` (default: the admin) carries: its principal, signed as the gateway would. */
  credential(p?: Principal): CallCredential;
  /** A call on another service's own behalf (its call key), as the task runner's directories. */
  asService<Req, Res>(
    method: Parameters<typeof callUnary<Req, Res>>[1],
    req: Req,
    name: string,
  ): Promise<Res>;
  stop(): Promise<void>;
}

/** `clock` pins the dataset service's time (default: the system's). */
export async function startDatasetUnderTest(
  options: { clock?: Clock } = {},
): Promise<DatasetUnderTest> {
  const keys = testCallKeys();
  const { db, env: common } = await startTestEnvironment("ds");
  const identity = await startIdentityForOthers(common, keys);
  const { admin } = identity;
  const dataset: Running = await startDataset(
    {
      ...common,
      DATASET_GRPC_PORT: String(await freePort()),
      DATASET_PROBE_PORT: "0",
      ...keys.env("dataset"),
      IDENTITY_GRPC_URL: identity.url,
    },
    createLogger({ service: "dataset-test", level: "warn" }),
    options,
  );
  const datasetUrl = `127.0.0.1:${dataset.grpcPort}`;
  const channel = createChannel(datasetUrl);
  return {
    db,
    channel,
    admin,
    spaceId: identity.spaceId,
    env: common,
    keys,
    identityUrl: identity.url,
    datasetUrl,
    call: (method, req, p = admin) =>
      callUnary(channel, method, req, { credential: keys.caller(p), requestId: "t" }),
    credential: (p = admin) => keys.caller(p),
    asService: (method, req, name) =>
      callUnary(channel, method, req, { credential: keys.service(name), requestId: "t" }),
    async stop() {
      channel.close();
      await dataset.stop();
      await identity.stop();
      await db.drop();
    },
  };
}

export { problemOf } from "@argus/testkit";

/**
 * Every example of a dataset's version (default: the latest), page by page, in the list's
 * order: its id, its fields, and the example as the service answered it (JSON text).
 */
export async function allExamples(t: DatasetUnderTest, datasetId: string, versionId = "") {
  const out: { id: string; fields: Record<string, unknown>; raw: string }[] = [];
  let after = "";
  do {
    const page = await t.call(DatasetServiceService.listExamples, {
      datasetId,
      versionId,
      page: { limit: 500, after },
    });
    out.push(
      ...page.examples.map((e) => ({
        id: e.id,
        fields: JSON.parse(e.fieldsJson) as Record<string, unknown>,
        raw: JSON.stringify(e),
      })),
    );
    after = page.page?.nextAfter ?? "";
  } while (after !== "");
  return out;
}
