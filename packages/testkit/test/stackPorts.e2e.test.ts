import { createServer, type Server } from "node:net";
import { afterAll, expect, it } from "vitest";
import { createTestDatabase, startStack, testInfra, type Stack } from "../src/index.ts";

const held: Server[] = [];
let stack: Stack | undefined;
afterAll(async () => {
  await stack?.stop();
  for (const s of held) s.close();
});

function hold(port: number): Promise<boolean> {
  const s = createServer();
  return new Promise((resolve) => {
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => {
      held.push(s);
      resolve(true);
    });
  });
}

it("starts on new ports when backends lose theirs before binding them, gateway and all", async () => {
  // Two files' stacks once chose the same ports and each lost some to the other: the gateway
  // then waited its whole minute for backends that were gone, and the start failed. Here
  // another process takes every backend's ports between their choice and their bind.
  const db = await createTestDatabase(testInfra());
  const lines: string[] = [];
  const starts: Record<string, readonly number[]>[] = [];
  let taken = 0;
  try {
    stack = await startStack({
      databaseUrl: db.url,
      onLine: (line) => lines.push(line),
      beforeStart: async (ports) => {
        starts.push(structuredClone(ports));
        if (starts.length > 1) return;
        for (const [name, own] of Object.entries(ports))
          if (name !== "gateway") for (const port of own) if (await hold(port)) taken++;
      },
    });
  } catch (err) {
    await db.drop();
    throw new Error(`${String(err)}\n${lines.join("\n")}`, { cause: err });
  }
  const seen = `\n${lines.join("\n")}`;
  expect(taken, seen).toBe(12);
  // The first loss gave up the others' waits: the first round ended there, its line naming the
  // backends that had failed by then, not all six whose ports were held. Each loss is followed
  // by a start on new ports. A later round can lose a port too, to whatever else runs on the
  // machine between the choice and the bind (CI saw it once: identity's probe port, in the
  // second round), and then starts again the same way.
  const losses = lines.filter((l) => /lost ports to another process/.test(l));
  const backends = /identity|catalog|dataset|tracing|task-runner|webhook-dispatcher/g;
  expect(losses.length, seen).toBeGreaterThanOrEqual(1);
  expect(losses[0]!.match(backends)!.length, seen).toBeLessThan(6);
  expect(losses[0]).not.toContain("gateway");
  expect(starts).toHaveLength(losses.length + 1);
  // Every process, the gateway too, got ports it had not had: those given up may have lost theirs.
  for (const [i, ports] of starts.slice(1).entries())
    for (const [name, own] of Object.entries(ports))
      for (const port of own) expect(starts[i]![name], name).not.toContain(port);
  const ready = await fetch(`${stack.baseUrl}/readyz`);
  expect(ready.status).toBe(200);
  const me = await fetch(`${stack.baseUrl}/v2/spaces`, {
    headers: { authorization: `Bearer ${stack.apiKey}` },
  });
  expect(me.status).toBe(200);
});
