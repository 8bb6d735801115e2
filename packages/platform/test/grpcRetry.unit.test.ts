import { status, type ServiceError } from "@grpc/grpc-js";
import { IdentityServiceService as S } from "@argus/proto/identity/v1";
import { describe, expect, it } from "vitest";
import { DomainError } from "../src/errors.ts";
import { callUnary } from "../src/grpcClient.ts";
import { bindService } from "../src/grpcServer.ts";
import { asGateway, serve, space } from "./grpcFixtures.ts";

/**
 * GetSpace (NO_SIDE_EFFECTS) and CreateSpace (a mutation), both UNAVAILABLE `failures` times;
 * `onCall` hears each call's number as it arrives.
 */
async function flakyIdentity(failures: number, onCall: (n: number) => void = () => undefined) {
  const calls = { getSpace: 0, createSpace: 0 };
  const flaky = (name: keyof typeof calls) => async () => {
    onCall(++calls[name]);
    if (calls[name] <= failures) throw new DomainError("service-unavailable", "restarting");
    return space;
  };
  const channel = await serve(
    bindService(
      { getSpace: S.getSpace, createSpace: S.createSpace },
      { getSpace: flaky("getSpace"), createSpace: flaky("createSpace") },
    ),
  );
  return { channel, calls };
}

const createRequest = { name: "S", description: "", organizationId: "o1", isPrivate: false };

describe("retries follow the proto's idempotency_level", () => {
  it("retries a NO_SIDE_EFFECTS method on UNAVAILABLE", async () => {
    const { channel, calls } = await flakyIdentity(2);
    await expect(callUnary(channel, S.getSpace, { id: "s1" }, asGateway)).resolves.toMatchObject({
      id: "s1",
    });
    expect(calls.getSpace).toBe(3);
  });

  it("does not retry a mutation", async () => {
    const { channel, calls } = await flakyIdentity(2);
    const err = await callUnary(channel, S.createSpace, createRequest, asGateway).catch((e) => e);
    expect((err as ServiceError).code).toBe(status.UNAVAILABLE);
    expect(calls.createSpace).toBe(1);
  });

  it("an explicit idempotent flag overrides the proto", async () => {
    const { channel, calls } = await flakyIdentity(1);
    const opts = { ...asGateway, idempotent: false };
    const err = await callUnary(channel, S.getSpace, { id: "s1" }, opts).catch((e) => e);
    expect((err as ServiceError).code).toBe(status.UNAVAILABLE);
    await callUnary(channel, S.createSpace, createRequest, { ...asGateway, idempotent: true });
    expect(calls).toEqual({ getSpace: 1, createSpace: 2 });
  });

  it("never retries past the deadline", async () => {
    const { channel, calls } = await flakyIdentity(Infinity);
    const started = Date.now();
    const opts = { ...asGateway, deadlineMs: 250 };
    const err = await callUnary(channel, S.getSpace, { id: "s1" }, opts).catch((e) => e);
    expect([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]).toContain((err as ServiceError).code);
    expect(Date.now() - started).toBeLessThan(1_000);
    // 0 ms, +100, +200: the next pause (400 ms) would end past the deadline.
    expect(calls.getSpace).toBeLessThanOrEqual(3);
  });

  it("stops retrying once the signal aborts", async () => {
    // Aborted just after the second attempt failed: in the pause before the third (200 ms),
    // or, on a slow machine, while the second's failure is still on its way. Neither retries.
    const abort = new AbortController();
    const { channel, calls } = await flakyIdentity(Infinity, (n) => {
      if (n === 2) setTimeout(() => abort.abort(), 20);
    });
    const opts = { ...asGateway, signal: abort.signal };
    const err = await callUnary(channel, S.getSpace, { id: "s1" }, opts).catch((e) => e);
    expect((err as ServiceError).code).toBe(status.CANCELLED);
    expect(calls.getSpace).toBe(2);
  });
});

describe("a call captures no caller stack", () => {
  it("leaves Error.stackTraceLimit as it found it, and a failure keeps its status and details", async () => {
    const { channel } = await flakyIdentity(Infinity);
    const before = Error.stackTraceLimit;
    const pending = callUnary(channel, S.createSpace, createRequest, asGateway);
    expect(Error.stackTraceLimit).toBe(before);
    const err = (await pending.catch((e) => e)) as ServiceError;
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(err.details).toBe("restarting");
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("after").stack).toContain("grpcRetry.unit.test.ts");
  });
});
