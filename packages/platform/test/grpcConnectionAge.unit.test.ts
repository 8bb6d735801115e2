import { setTimeout as sleep } from "node:timers/promises";
import { IdentityServiceService as S } from "@argus/proto/identity/v1";
import { expect, it } from "vitest";
import { callUnary, createChannel } from "../src/grpcClient.ts";
import { bindService } from "../src/grpcServer.ts";
import { afterThisTest, asGateway, space, startServer } from "./grpcFixtures.ts";

it("finishes a call that outlives its connection's age and the channel's next keepalive ping", async () => {
  // A service sends GOAWAY when a connection reaches its age; calls on it run to their end.
  // grpc-js (upstream grpc/grpc-node#3068) went on pinging that draining connection, the ping
  // failed, and it failed every call still on it with UNAVAILABLE: a Flight download of a
  // million examples (~11 s) failed one run in three with a 30 s age and a 30 s keepalive.
  // patches/@grpc__grpc-js*.patch stops the pings once the connection drains.
  let slowCalls = 0;
  const server = await startServer(
    { maxConnectionAgeMs: 200 },
    bindService(
      { getSpace: S.getSpace },
      {
        getSpace: async (req) => {
          if (req.id === "slow") {
            slowCalls++;
            await sleep(1_500);
          }
          return space;
        },
      },
    ),
  );
  const channel = createChannel(`127.0.0.1:${server.port}`, { keepaliveTimeMs: 400 });
  afterThisTest(() => channel.close());
  // Connected first, so the age (~200 ms) and the first ping (~400 ms) fall inside the call.
  await callUnary(channel, S.getSpace, { id: "s1" }, asGateway);
  const slow = await callUnary(
    channel,
    S.getSpace,
    { id: "slow" },
    { ...asGateway, deadlineMs: 5_000 },
  );
  expect(slow).toMatchObject({ id: space.id, name: space.name });
  // Answered by its first attempt: not failed and retried on the new connection.
  expect(slowCalls).toBe(1);
  // New calls go to a new connection.
  await expect(callUnary(channel, S.getSpace, { id: "s1" }, asGateway)).resolves.toMatchObject({
    id: space.id,
  });
});
