/**
 * Request keys in the command handler (docs/architecture.md, "Safe retries"): the key of a
 * call commits with its command's events or not at all, and a second execution of the same
 * request appends nothing.
 */
import { describe, expect, it } from "vitest";
import {
  DomainError,
  RequestAlreadyApplied,
  createLogger,
  fixedClock,
  runInCall,
  type CallContext,
  type RequestKey,
} from "@argus/platform";
import { createCommandHandler, createEventStore, type Decider } from "../src/index.ts";
import { findRequest, storeReply } from "../src/requests/appliedRequests.ts";
import { fileSchema } from "./support.ts";

type Event = { type: "Incremented"; data: { n: number } };
type Command = { type: "Increment"; fail?: boolean };
const counter: Decider<{ n: number }, Command, Event> = {
  initialState: { n: 0 },
  evolve: (s, e) => ({ n: e.data.n }),
  decide(c, s) {
    if (c.fail) throw new DomainError("validation-error", "refused");
    return [{ type: "Incremented", data: { n: s.n + 1 } }];
  },
};

const DAY_MS = 24 * 60 * 60 * 1000;
const clock = fixedClock(new Date("2031-01-01T00:00:00Z"));
const file = fileSchema("keys");
const { schema } = file;

const commands = () =>
  createCommandHandler(createEventStore({ pool: file.env.pool, schema }), async () => {}, clock);
const history = async (id: string) =>
  (await createEventStore({ pool: file.env.pool, schema }).readStream(id)).map((e) => e.data);
const keyOf = (key: string, over: Partial<RequestKey> = {}): RequestKey => ({
  scope: "acc/user/u",
  key,
  fingerprint: "f".repeat(64),
  method: "/test.v1.Counter/Increment",
  recorded: false,
  ...over,
});
/** Runs `fn` as a gRPC call carrying `requestKey` would. */
const inCall = <T>(requestKey: RequestKey, fn: () => Promise<T>): Promise<T> =>
  runInCall(
    {
      signal: new AbortController().signal,
      logger: createLogger({ service: "test", level: "error" }),
      requestKey,
    } as unknown as CallContext,
    fn,
  );
const increment = (id: string, requestKey: RequestKey, fail = false) =>
  inCall(requestKey, () =>
    commands().handle(`counter-${id}`, counter, { type: "Increment", fail }, {}),
  );

describe("a call's request key", () => {
  it("is recorded with the command's events; a second execution appends nothing", async () => {
    const id = crypto.randomUUID();
    const first = keyOf(`k-${id}`);
    await increment(id, first);
    expect(first.recorded).toBe(true);
    const err = await increment(id, keyOf(`k-${id}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestAlreadyApplied);
    expect(await history(`counter-${id}`)).toEqual([{ n: 1 }]);
  });

  it("is not recorded when the command fails: the retry runs", async () => {
    const id = crypto.randomUUID();
    const failing = keyOf(`k-${id}`);
    await expect(increment(id, failing, true)).rejects.toMatchObject({ type: "validation-error" });
    expect(failing.recorded).toBe(false);
    expect(await findRequest(file.env.pool, schema, failing, clock.now())).toBeUndefined();
    await increment(id, keyOf(`k-${id}`));
    expect(await history(`counter-${id}`)).toEqual([{ n: 1 }]);
  });

  it("belongs to its caller and its RPC: another scope or method is another key", async () => {
    const id = crypto.randomUUID();
    await increment(id, keyOf(`k-${id}`));
    await increment(id, keyOf(`k-${id}`, { scope: "acc/sa/bot" }));
    await increment(id, keyOf(`k-${id}`, { method: "/test.v1.Counter/Other" }));
    expect(await history(`counter-${id}`)).toHaveLength(3);
  });

  it("is recorded once per call: the call's later commands are part of the same request", async () => {
    const id = crypto.randomUUID();
    const key = keyOf(`k-${id}`);
    await inCall(key, async () => {
      const c = commands();
      await c.handle(`counter-${id}`, counter, { type: "Increment" }, {});
      await c.handle(`counter-${id}`, counter, { type: "Increment" }, {});
    });
    expect(await history(`counter-${id}`)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("concurrent executions of one request: exactly one appends", async () => {
    const id = crypto.randomUUID();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => increment(id, keyOf(`k-${id}`))),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(RequestAlreadyApplied);
    expect(await history(`counter-${id}`)).toEqual([{ n: 1 }]);
  });

  it("keeps the answer stored for it, and expires 24 hours after it was applied", async () => {
    const id = crypto.randomUUID();
    const applied = clock.now();
    const key = keyOf(`k-${id}`);
    await increment(id, key);
    expect(await findRequest(file.env.pool, schema, key, applied)).toEqual({
      fingerprint: key.fingerprint,
      reply: null,
    });
    await storeReply(file.env.pool, schema, key, Buffer.from("answer"));
    clock.set(new Date(applied.getTime() + DAY_MS - 1));
    expect((await findRequest(file.env.pool, schema, key, clock.now()))?.reply).toEqual(
      Buffer.from("answer"),
    );
    await expect(increment(id, keyOf(`k-${id}`))).rejects.toBeInstanceOf(RequestAlreadyApplied);
    clock.set(new Date(applied.getTime() + DAY_MS));
    expect(await findRequest(file.env.pool, schema, key, clock.now())).toBeUndefined();
    // Expired: a new request with the key applies, and takes the record over.
    await increment(id, keyOf(`k-${id}`));
    expect(await history(`counter-${id}`)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await findRequest(file.env.pool, schema, key, clock.now())).toMatchObject({
      reply: null,
    });
    clock.set(applied);
  });
});
