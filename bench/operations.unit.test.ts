import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runOperations } from "./operations.ts";

describe("runOperations", () => {
  it("times an operation from call to return", async () => {
    const r = await runOperations(
      { name: "wait", pids: {}, run: () => sleep(20) },
      { durationMs: 0, maxOps: 2 },
    );
    expect(r.latenciesMs).toHaveLength(1);
    expect(r.latenciesMs[0]).toBeGreaterThanOrEqual(19);
  });

  it("takes the latency an operation answers, as its own end came before its caller saw it", async () => {
    let n = 0;
    const r = await runOperations(
      {
        name: "watched",
        pids: {},
        async run() {
          await sleep(20);
          return ++n;
        },
      },
      { durationMs: 60_000, maxOps: 3 },
    );
    expect(r.latenciesMs).toEqual([1, 2, 3]);
    // Throughput stays over the wall time: the caller waited for the whole of each.
    expect(r.elapsedMs).toBeGreaterThanOrEqual(57);
  });

  it("counts a failed operation as an error by its message, not as a latency", async () => {
    const r = await runOperations(
      {
        name: "fails",
        pids: {},
        run: () => Promise.reject(new Error("18 evaluated")),
      },
      { durationMs: 0, maxOps: 1 },
    );
    expect(r.latenciesMs).toEqual([]);
    expect(r.errorKinds).toEqual({ "18 evaluated": 1 });
  });
});
