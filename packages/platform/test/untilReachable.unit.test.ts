import { describe, expect, it } from "vitest";
import { isUnreachable, untilReachable } from "../src/untilReachable.ts";

const failure = (code: string, message = code) => Object.assign(new Error(message), { code });

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    logger: {
      warn: (msg: string) => void lines.push(`warn ${msg}`),
      info: (msg: string) => void lines.push(`info ${msg}`),
    },
  };
}

describe("isUnreachable", () => {
  it("is true for a dependency that is not there yet", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "57P03", "08006"])
      expect(isUnreachable(failure(code)), code).toBe(true);
    const nats = Object.assign(new Error("connection refused"), { name: "ConnectionError" });
    expect(isUnreachable(nats)).toBe(true);
    expect(isUnreachable(new Error("wrapped", { cause: failure("ECONNREFUSED") }))).toBe(true);
    expect(isUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
  });

  it("is false for a refusal waiting does not change", () => {
    // Wrong password, missing database, a bug.
    for (const code of ["28P01", "3D000", "42P01"])
      expect(isUnreachable(failure(code)), code).toBe(false);
    expect(isUnreachable(new TypeError("x is undefined"))).toBe(false);
    expect(isUnreachable("ECONNREFUSED")).toBe(false);
  });
});

describe("untilReachable", () => {
  it("retries while the dependency is unreachable, then returns its answer", async () => {
    const { lines, logger } = recorder();
    let calls = 0;
    const answer = await untilReachable(
      "postgres",
      async () => {
        if (++calls < 3) throw failure("ECONNREFUSED");
        return "ok";
      },
      { logger },
    );
    expect(answer).toBe("ok");
    expect(calls).toBe(3);
    expect(lines).toEqual([
      "warn postgres unreachable; retrying",
      "warn postgres unreachable; retrying",
      "info postgres answers",
    ]);
  });

  it("throws any other failure at once", async () => {
    const { logger } = recorder();
    let calls = 0;
    const attempt = async () => {
      calls++;
      throw failure("28P01", "password authentication failed");
    };
    await expect(untilReachable("postgres", attempt, { logger })).rejects.toThrow(
      /password authentication failed/,
    );
    expect(calls).toBe(1);
  });

  it("gives up with the last failure when the time is up", async () => {
    const { logger } = recorder();
    let calls = 0;
    const started = Date.now();
    const attempt = async () => {
      calls++;
      throw failure("ECONNREFUSED", `refused ${calls}`);
    };
    // Delays 250, 500, 1000 ms: the third would end past 1 s.
    await expect(untilReachable("nats", attempt, { logger, timeoutMs: 1_000 })).rejects.toThrow(
      "refused 3",
    );
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
