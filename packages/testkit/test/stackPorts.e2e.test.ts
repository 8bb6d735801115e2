import { createServer, type Server } from "node:net";
import { afterAll, expect, it } from "vitest";
import { createTestDatabase, freePort, startStack, testInfra, type Stack } from "../src/index.ts";

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
  // This process walks its ports in order: the stack's come after this one, the gateway's
  // three (HTTP, OTLP, Flight) first, with the stack's own nats-server's among them.
  const walkFrom = await freePort();
  let taking: Promise<number> | undefined;
  const lines: string[] = [];
  const takeBackendPorts = async () => {
    let taken = 0;
    let skippedGateway = 0;
    // The management step runs between the first [migrate] line and the first spawn: seconds.
    // freePort's walk: on through this worker's slice of 2 500, round to its start.
    const low = 20_000 + ((Number(process.env.VITEST_POOL_ID) - 1) % 4) * 2_500;
    const after = (port: number) => low + ((port - low + 1) % 2_500);
    for (let port = after(walkFrom), n = 0; n < 200 && taken < 12; port = after(port), n++) {
      if (skippedGateway < 3) {
        if (await hold(port).then((ok) => (ok ? (held.pop()!.close(), true) : false)))
          skippedGateway++;
        continue;
      }
      if (await hold(port)) taken++;
    }
    return taken;
  };
  try {
    stack = await startStack({
      databaseUrl: db.url,
      onLine: (line) => {
        lines.push(line);
        if (line.startsWith("[migrate]")) taking ??= takeBackendPorts();
      },
    });
  } catch (err) {
    await db.drop();
    throw new Error(`${String(err)}\n${lines.join("\n")}`, { cause: err });
  }
  expect(await taking).toBe(12);
  // One new start sufficed: the first loss gave up the others' waits, and all got new ports.
  const losses = lines.filter((l) => /lost ports to another process/.test(l));
  expect(losses).toHaveLength(1);
  expect(losses[0]).toMatch(/identity|catalog|dataset|tracing|task-runner|webhook-dispatcher/);
  expect(losses[0]).not.toContain("gateway");
  const ready = await fetch(`${stack.baseUrl}/readyz`);
  expect(ready.status).toBe(200);
  const me = await fetch(`${stack.baseUrl}/v2/spaces`, {
    headers: { authorization: `Bearer ${stack.apiKey}` },
  });
  expect(me.status).toBe(200);
});
