import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { testInfra, uniqueName } from "@argus/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The relays' publishes are NATS requests, answered through nats-core's `RequestOne`, which
 * patches/@nats-io__nats-core@3.4.0.patch changed: an answered request no longer goes through
 * `cancel()` (which made a "cancelled" error for a promise already settled). What the patch must
 * keep: every request settles as before, and none stays registered on the connection after.
 */

/** nats-core's table of the connection's requests in flight (not part of its API). */
const pending = (nc: NatsConnection): number =>
  (nc as unknown as { protocol: { muxSubscriptions: { reqs: Map<string, unknown> } } }).protocol
    .muxSubscriptions.reqs.size;

let nc: NatsConnection;
beforeAll(async () => {
  // As the services connect (serviceRuntime.ts): without async traces.
  nc = await connect({
    servers: testInfra().natsUrl,
    name: uniqueName("requests"),
    noAsyncTraces: true,
  });
});
afterAll(() => nc.close());

describe("NATS requests, as the relays make them", () => {
  it("answers each request with its own reply and leaves none registered", async () => {
    const subject = uniqueName("echo");
    const sub = nc.subscribe(subject, { callback: (_err, msg) => void msg.respond(msg.data) });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => nc.request(subject, `n${i}`, { timeout: 5_000 })),
    );
    expect(answers.map((m) => m.string())).toEqual(Array.from({ length: 200 }, (_, i) => `n${i}`));
    expect(pending(nc)).toBe(0);
    sub.unsubscribe();
  });

  it("fails a request nobody answers in time, and one nobody listens for, leaving none registered", async () => {
    const silent = uniqueName("silent");
    const sub = nc.subscribe(silent, { callback: () => {} });
    await nc.flush();
    await expect(nc.request(silent, "", { timeout: 200 })).rejects.toThrow(/timeout/i);
    await expect(nc.request(uniqueName("nobody"), "", { timeout: 5_000 })).rejects.toMatchObject({
      name: "RequestError",
    });
    expect(pending(nc)).toBe(0);
    sub.unsubscribe();
  });
});
