import * as grpc from "@grpc/grpc-js";
import { IdentityServiceService as Identity } from "@argus/proto/identity/v1";
import { describe, expect, it } from "vitest";
import { callUnary, createChannel } from "../src/grpcClient.ts";
import { afterThisTest, asGateway, space } from "./grpcFixtures.ts";

/**
 * A peer as a process of the version before 2026-12-04 answers: it knows a credential only as
 * its three entries (`argus-principal-bin`, …) and refuses a call without them before running
 * anything, as "unsigned call"; or, with `refusal`, refuses every call so.
 */
async function olderPeer(refusal?: string) {
  const seen: grpc.Metadata[] = [];
  const server = new grpc.Server();
  server.addService(
    { getSpace: Identity.getSpace },
    {
      getSpace: (
        call: grpc.ServerUnaryCall<unknown, unknown>,
        done: grpc.sendUnaryData<unknown>,
      ) => {
        seen.push(call.metadata);
        const known =
          call.metadata.get("argus-principal-bin").length > 0 ||
          call.metadata.get("argus-service").length > 0;
        if (refusal || !known)
          return done({ code: grpc.status.UNAUTHENTICATED, details: refusal ?? "unsigned call" });
        done(null, space);
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  afterThisTest(() => server.forceShutdown());
  const channel = createChannel(`127.0.0.1:${port}`);
  afterThisTest(() => channel.close());
  return { channel, seen };
}

/** The credential and request entries a call carried, by name. */
const entries = (md: grpc.Metadata) =>
  Object.keys(md.getMap())
    .filter((k) => k.startsWith("argus-") || k.startsWith("x-"))
    .sort();

describe("a call to a process of the version before 2026-12-04 (a rolling upgrade)", () => {
  it("is sent once more with the entries that process reads, and answered", async () => {
    const { channel, seen } = await olderPeer();
    const got = await callUnary(
      channel,
      Identity.getSpace,
      { id: "s1" },
      { ...asGateway, requestId: "req-7", clientIp: "203.0.113.9" },
    );
    expect(got.id).toBe("s1");
    expect(seen.map(entries)).toEqual([
      ["argus-caller", "argus-request"],
      [
        "argus-principal-bin",
        "argus-principal-issued-at",
        "argus-principal-sig",
        "x-client-ip",
        "x-request-id",
      ],
    ]);
    expect([seen[1]!.get("x-request-id"), seen[1]!.get("x-client-ip")]).toEqual([
      ["req-7"],
      ["203.0.113.9"],
    ]);
  });

  it("is not sent again for any other refusal", async () => {
    const { channel, seen } = await olderPeer("signature expired");
    await expect(callUnary(channel, Identity.getSpace, { id: "s1" }, asGateway)).rejects.toThrow(
      /signature expired/,
    );
    expect(seen).toHaveLength(1);
  });
});
