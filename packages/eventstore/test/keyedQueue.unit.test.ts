import { describe, expect, it } from "vitest";
import { createKeyedQueue } from "../src/consumers/keyedQueue.ts";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createKeyedQueue", () => {
  it("runs one key's work in submission order, one at a time", async () => {
    const run = createKeyedQueue();
    const log: string[] = [];
    let active = 0;
    const job = (name: string, ms: number) => async () => {
      active++;
      expect(active).toBe(1);
      await tick(ms);
      log.push(name);
      active--;
    };
    await Promise.all([run("s", job("v1", 20)), run("s", job("v2", 1)), run("s", job("v3", 5))]);
    expect(log).toEqual(["v1", "v2", "v3"]);
  });

  it("runs different keys side by side", async () => {
    const run = createKeyedQueue();
    const log: string[] = [];
    await Promise.all([
      run("a", async () => {
        await tick(30);
        log.push("a");
      }),
      run("b", async () => {
        await tick(1);
        log.push("b");
      }),
    ]);
    expect(log).toEqual(["b", "a"]);
  });

  it("keeps going after a failed job, which still rejects for its caller", async () => {
    const run = createKeyedQueue();
    const failed = run("s", async () => {
      throw new Error("boom");
    });
    const next = run("s", async () => {});
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBeUndefined();
  });
});
