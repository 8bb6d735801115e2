import { describe, expect, it } from "vitest";
import { natsReconnectOptions, reconnectDelay } from "../src/natsReconnect.ts";

describe("NATS reconnects", () => {
  it("never give up", () => {
    expect(natsReconnectOptions().maxReconnectAttempts).toBe(-1);
  });

  it("wait longer the longer the outage lasts, between the bounds", () => {
    let t = 1_000_000;
    const delay = reconnectDelay(
      { minMs: 250, maxMs: 4_000 },
      () => t,
      () => 1,
    );
    const waits: number[] = [];
    for (let i = 0; i < 40; i++) {
      const w = delay();
      waits.push(w);
      t += w;
    }
    expect(waits[0]).toBe(250);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(Math.max(...waits)).toBe(4_000);
    // A minute into an outage it tries at least every 4 s: 90 s cost at most one wait more.
    expect(waits.filter((w) => w === 4_000).length).toBeGreaterThan(10);
  });

  it("are jittered: each wait between half and all of its ceiling", () => {
    const t = 0;
    const low = reconnectDelay(
      { minMs: 250, maxMs: 4_000 },
      () => t,
      () => 0,
    );
    const high = reconnectDelay(
      { minMs: 250, maxMs: 4_000 },
      () => t,
      () => 0.999_999,
    );
    expect(low()).toBe(125);
    expect(high()).toBe(250);
  });

  it("start again from the shortest wait when a new outage begins", () => {
    let t = 0;
    const delay = reconnectDelay(
      { minMs: 250, maxMs: 4_000 },
      () => t,
      () => 1,
    );
    for (; t < 60_000; t += delay());
    expect(delay()).toBe(4_000);
    // Connected for a while: no calls. The next outage starts short again.
    t += 30_000;
    expect(delay()).toBe(250);
  });
});
