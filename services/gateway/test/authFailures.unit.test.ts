import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ARGUS_KEY_PREFIX, argusKeyOf } from "@argus/contracts/apiKeyFormat";
import { fixedClock, type Clock } from "@argus/platform";
import type { Handlers } from "../src/http/handler.ts";
import { startGateway, type TestGateway } from "./startGateway.ts";

// The test gateway listens on 127.0.0.1; a client bound to another loopback address is, to
// the gateway (which trusts no forwarding header), another client.
const A = "127.0.0.1";
const B = "127.0.0.2";

const handlers: Partial<Handlers> = {
  list_spaces: async () => ({ status: 200, body: { spaces: [] } }),
};

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: Record<string, unknown>;
}

/** GET /v2/spaces from `from`, with `Authorization: Bearer <key>` unless key is null. */
function get(gw: TestGateway, from: string, key: string | null): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${gw.url}/v2/spaces?limit=1`,
      {
        localAddress: from,
        agent: false,
        headers: key === null ? {} : { authorization: `Bearer ${key}` },
      },
      (res) => {
        let text = "";
        res.setEncoding("latin1");
        res.on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"],
            body: JSON.parse(text) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const fragment = (a: Answer): string => String(a.body.type).split("#")[1] ?? "";
const authOutcomes = (gw: TestGateway): string[] =>
  gw.logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === "request")
    .map((l) => String(l.auth));

const wellFormed = argusKeyOf("A".repeat(40));
const badChecksum = wellFormed.slice(0, -1) + (wellFormed.endsWith("0") ? "1" : "0");
// A caller-chosen key, like the initial admin's: any printable ASCII of 32+ characters.
const chosenKey = "my very own initial admin key, not ak-argus format";

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe("keys refused without asking identity", () => {
  it("answers a malformed ak-argus- key 401 and never calls the authenticator", async () => {
    gw = await startGateway(handlers);
    const malformed = [
      badChecksum,
      wellFormed.slice(0, -1), // one character short
      `${wellFormed}0`, // one too many
      wellFormed.replace(/A(?=A)/, "-"), // outside the alphabet
      `${ARGUS_KEY_PREFIX}${"x".repeat(60)}`,
      ARGUS_KEY_PREFIX,
    ];
    for (const key of malformed) {
      const res = await get(gw, A, key);
      expect(res.status, key).toBe(401);
      expect(fragment(res)).toBe("authentication-required");
      expect(res.body.detail).toBe("missing or invalid API key");
    }
    expect(gw.authenticated).toEqual([]);
    await waitForLogs(gw, malformed.length);
    expect(authOutcomes(gw)).toEqual(malformed.map(() => "refused_locally"));
  });

  it("refuses keys longer than 512 characters and keys that are not printable ASCII", async () => {
    gw = await startGateway(handlers);
    for (const key of ["k".repeat(513), `${chosenKey}\u00e9`, `${chosenKey}\tx`]) {
      const res = await get(gw, A, key);
      expect(res.status).toBe(401);
      expect(fragment(res)).toBe("authentication-required");
    }
    expect(gw.authenticated).toEqual([]);
  });

  it("still asks identity about well-formed Argus keys and caller-chosen keys", async () => {
    gw = await startGateway(handlers);
    expect((await get(gw, A, wellFormed)).status).toBe(401);
    expect((await get(gw, A, chosenKey)).status).toBe(401);
    expect((await get(gw, A, "k".repeat(512))).status).toBe(401);
    expect((await get(gw, A, "ak-alice")).status).toBe(200);
    expect(gw.authenticated).toEqual([wellFormed, chosenKey, "k".repeat(512), "ak-alice"]);
    await waitForLogs(gw, 4);
    expect(authOutcomes(gw)).toEqual(["rejected", "rejected", "rejected", "ok"]);
  });
});

describe("rate limit of failed authentications per client address", () => {
  const limited = (clock: Clock) =>
    startGateway(handlers, {
      config: { unauthRateLimitPerSecond: 1, unauthRateLimitBurst: 3 },
      clock,
    });

  it("answers 429 with Retry-After once an address spent its budget; others are unaffected", async () => {
    const clock = fixedClock(new Date(1_700_000_000_000));
    gw = await limited(clock);
    // No key, a key refused locally, a key identity does not know: each costs a token.
    expect((await get(gw, B, null)).status).toBe(401);
    expect((await get(gw, B, badChecksum)).status).toBe(401);
    expect((await get(gw, B, wellFormed)).status).toBe(401);
    expect(gw.authenticated).toEqual([wellFormed]);

    for (const key of [null, badChecksum, wellFormed, "ak-alice"]) {
      const res = await get(gw, B, key);
      expect(res.status, String(key)).toBe(429);
      expect(fragment(res)).toBe("rate-limit-exceeded");
      expect(res.retryAfter).toBe("1");
    }
    // While throttled, not even a plausible key reaches identity.
    expect(gw.authenticated).toEqual([wellFormed]);

    // Another address: a valid key works, and its failures have their own budget.
    expect((await get(gw, A, "ak-alice")).status).toBe(200);
    expect((await get(gw, A, badChecksum)).status).toBe(401);

    clock.advance(1_000); // one token back
    expect((await get(gw, B, badChecksum)).status).toBe(401);
    expect((await get(gw, B, badChecksum)).status).toBe(429);
    await waitForLogs(gw, 11);
    expect(authOutcomes(gw).filter((o) => o === "throttled")).toHaveLength(5);
  });

  it("does not charge successful authentications", async () => {
    gw = await limited(fixedClock(new Date(1_700_000_000_000)));
    for (let i = 0; i < 10; i++) expect((await get(gw, B, "ak-alice")).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(gw, B, badChecksum)).status).toBe(401);
    expect((await get(gw, B, badChecksum)).status).toBe(429);
  });

  it("stops asking identity once its rejections spent the budget", async () => {
    gw = await limited(fixedClock(new Date(1_700_000_000_000)));
    for (let i = 0; i < 3; i++) expect((await get(gw, B, wellFormed)).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await get(gw, B, wellFormed)).status).toBe(429);
    expect(gw.authenticated).toHaveLength(3);
  });
});

/** The access log is written when the response closes, just after the client has it. */
async function waitForLogs(g: TestGateway, n: number): Promise<void> {
  for (let i = 0; i < 100 && authOutcomes(g).length < n; i++)
    await new Promise((r) => setTimeout(r, 10));
}
