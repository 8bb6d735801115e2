import type * as grpc from "@grpc/grpc-js";
import { callUnary, createChannel, createLogger, type Principal } from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { freePort, type TestCallKeys } from "@argus/testkit";
import { startIdentity, type RunningIdentity } from "../src/index.ts";

/** Identity in-process for another service's tests, initialized with its admin key. */
export interface IdentityForOthers {
  identity: RunningIdentity;
  /** Its gRPC address, for `IDENTITY_GRPC_URL`. */
  url: string;
  channel: grpc.Client;
  /** The account admin's principal (as the gateway would sign it). */
  admin: Principal;
  /** The default space's id, and its organization's. */
  spaceId: string;
  organizationId: string;
  stop(): Promise<void>;
}

/** `common` is the environment every process of the test shares (database, NATS, stream). */
export async function startIdentityForOthers(
  common: Record<string, string>,
  keys: TestCallKeys,
): Promise<IdentityForOthers> {
  const apiKey = `ak-int-${"i".repeat(40)}`;
  const identity = await startIdentity(
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
  const url = `127.0.0.1:${identity.grpcPort}`;
  const channel = createChannel(url);
  const admin = (
    await callUnary(
      channel,
      IdentityServiceService.authenticate,
      { apiKey },
      { credential: keys.service("gateway"), requestId: "t" },
    )
  ).principal!;
  const spaces = await callUnary(
    channel,
    IdentityServiceService.listSpaces,
    { page: { limit: 10, after: "" }, name: "", organizationId: "" },
    { credential: keys.caller(admin), requestId: "t" },
  );
  return {
    identity,
    url,
    channel,
    admin,
    spaceId: spaces.spaces[0]!.id,
    organizationId: spaces.spaces[0]!.organizationId,
    async stop() {
      channel.close();
      await identity.stop();
    },
  };
}
