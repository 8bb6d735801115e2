import { setTimeout as sleep } from "node:timers/promises";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { IdentityServiceService as Identity } from "@argus/proto/identity/v1";
import { TagServiceService as Tags, type Tag } from "@argus/proto/catalog/v1/tags";
import { describe, expect, it } from "vitest";
import type { CallContext } from "../src/context.ts";
import { DomainError, fromGrpcError } from "../src/errors.ts";
import { callUnary, onwardCall } from "../src/grpcClient.ts";
import { bindService } from "../src/grpcServer.ts";
import { asGateway, logged, serve, space } from "./grpcFixtures.ts";

const tag = { id: "t1", spaceId: "s1", name: "t", createdAt: "", updatedAt: "" };

/** Resolves with the abort reason once the handler's signal aborts. */
const aborted = (ctx: CallContext) =>
  new Promise<unknown>((resolve) =>
    ctx.signal.addEventListener("abort", () => resolve(ctx.signal.reason)),
  );

/**
 * service B (TagService.GetTag) ← service A (IdentityService.GetSpace, which asks B after
 * `workMs` of its own) ← a gateway-like caller. Each hop records the context it was given.
 */
async function chain(opts: { workMs: number; b: (ctx: CallContext) => Promise<unknown> }) {
  const seen: { a?: CallContext; b?: CallContext; aError?: unknown } = {};
  const toB = await serve(
    bindService(
      { getTag: Tags.getTag },
      {
        getTag: async (_req, ctx) => {
          seen.b = ctx;
          await opts.b(ctx);
          return tag;
        },
      },
    ),
  );
  const toA = await serve(
    bindService(
      { getSpace: Identity.getSpace },
      {
        getSpace: async (_req, ctx) => {
          seen.a = ctx;
          await sleep(opts.workMs);
          await callUnary(toB, Tags.getTag, { id: "t1" }, onwardCall(ctx)).catch((e) => {
            seen.aError = e;
            throw fromGrpcError(e);
          });
          return space;
        },
      },
    ),
  );
  return { toA, seen };
}

describe("deadlines propagate across hops", () => {
  it("a service calling another passes on the remaining time, not a fresh budget", async () => {
    const { toA, seen } = await chain({ workMs: 200, b: async () => undefined });
    const before = Date.now();
    await callUnary(toA, Identity.getSpace, { id: "s1" }, { ...asGateway, deadlineMs: 2_000 });
    const a = seen.a!.deadline!.getTime();
    const b = seen.b!.deadline!.getTime();
    expect(a).toBeGreaterThanOrEqual(before + 1_900);
    expect(a).toBeLessThanOrEqual(Date.now() + 2_000);
    // A fresh 5 s budget would end ~3.2 s after A's deadline.
    expect(b).toBeLessThanOrEqual(a);
    expect(b).toBeGreaterThan(a - 500);
  });

  it("a call without a deadline has none in its context", async () => {
    const channel = await serve(
      bindService(
        { getTag: Tags.getTag },
        { getTag: async (_r, ctx) => ({ ...tag, name: String(ctx.deadline) }) },
      ),
    );
    const md = new Metadata();
    asGateway.credential.attach(md, Tags.getTag.path);
    const res = await new Promise<Tag>((resolve, reject) =>
      channel.makeUnaryRequest(
        Tags.getTag.path,
        Tags.getTag.requestSerialize,
        Tags.getTag.responseDeserialize,
        { id: "t1" },
        md,
        (err, value) => (err ? reject(err) : resolve(value!)),
      ),
    );
    expect(res.name).toBe("undefined");
  });
});

describe("the handler's signal", () => {
  it("aborts when the deadline passes, at every hop", async () => {
    let bReason: unknown;
    const { toA, seen } = await chain({
      workMs: 0,
      b: async (ctx) => {
        bReason = await aborted(ctx);
      },
    });
    const opts = { ...asGateway, deadlineMs: 300 };
    const err = await callUnary(toA, Identity.getSpace, { id: "s1" }, opts).catch((e) => e);
    expect((err as ServiceError).code).toBe(status.DEADLINE_EXCEEDED);
    await expect.poll(() => bReason).toBeInstanceOf(DomainError);
    expect((bReason as DomainError).type).toBe("gateway-timeout");
    // A's onward call ended at its own (earlier) deadline, before A's.
    expect((seen.aError as ServiceError).code).toBe(status.DEADLINE_EXCEEDED);
  });

  it("aborts when the caller cancels, and cancels the handler's onward calls", async () => {
    const { toA, seen } = await chain({ workMs: 0, b: aborted });
    const controller = new AbortController();
    const call = callUnary(
      toA,
      Identity.getSpace,
      { id: "s1" },
      {
        ...asGateway,
        deadlineMs: 10_000,
        signal: controller.signal,
      },
    ).catch((e) => e);
    await expect.poll(() => seen.b).toBeDefined();
    const cancelledAt = Date.now();
    controller.abort();
    expect(((await call) as ServiceError).code).toBe(status.CANCELLED);
    await expect.poll(() => seen.a!.signal.aborted).toBe(true);
    await expect.poll(() => seen.b!.signal.aborted).toBe(true);
    expect((seen.aError as ServiceError).code).toBe(status.CANCELLED);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
  });
});

describe("a call answered", () => {
  it("is not aborted afterwards: nothing of it is left to stop", async () => {
    let served: CallContext | undefined;
    const channel = await serve(
      bindService(
        { getTag: Tags.getTag },
        {
          getTag: async (_r, ctx) => {
            served = ctx;
            return tag;
          },
        },
      ),
    );
    for (let i = 0; i < 20; i++)
      await callUnary(channel, Tags.getTag, { id: "t1" }, { ...asGateway, deadlineMs: 5_000 });
    // grpc-js reports each stream's close as "cancelled", after the answer.
    await sleep(100);
    expect(served?.signal.aborted).toBe(false);
  });
});

describe("a peer's status without a problem trailer", () => {
  it("reaches the caller as a bare internal error, and the service in between logs its cause", async () => {
    // B serves no TagService: grpc-js itself answers A's onward call UNIMPLEMENTED.
    const toBare = await serve(
      bindService({ getSpace: Identity.getSpace }, { getSpace: async () => space }),
    );
    const a = await serve(
      bindService(
        { getSpace: Identity.getSpace },
        {
          getSpace: async (_req, ctx) => {
            await callUnary(toBare, Tags.getTag, { id: "t1" }, onwardCall(ctx)).catch((e) => {
              throw fromGrpcError(e);
            });
            return space;
          },
        },
      ),
    );
    const err = (await callUnary(a, Identity.getSpace, { id: "s1" }, asGateway).catch(
      (e) => e,
    )) as ServiceError;
    expect(err.code).toBe(status.INTERNAL);
    expect(err.details).toBe("internal error");
    const errors = logged
      .map((l) => JSON.parse(l) as Record<string, string>)
      .filter((l) => l.level === "error");
    expect(errors.map((l) => l.msg)).toEqual(["unhandled error in rpc"]);
    expect(errors[0]!.error).toMatch(/caused by: Error: 12 UNIMPLEMENTED/);
  });
});
