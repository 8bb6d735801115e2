/**
 * `./argus up` supervises its processes (issue 29, item 4): the stack it runs (startStack with
 * `supervise`, as scripts/start.ts starts it) brings back a service killed with -9 — its exit
 * logged, a new process after the restart delay — and the API serves that service again
 * without anyone restarting anything by hand.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type Api } from "./support.ts";

const lines: string[] = [];
let api: Api;

beforeAll(async () => {
  api = await startApi({ supervise: true, onLine: (line) => lines.push(line) });
});
afterAll(() => api?.stop());

it("restarts a service killed with -9, logs its exit, and serves it again", async () => {
  const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id;
  const old = api.stack.processes.catalog!;
  const killedAt = Date.now();
  process.kill(-old.pid, "SIGKILL");

  let res = await api.req("POST", "/v2/tags", { body: { space_id: spaceId, name: "before" } });
  for (let i = 0; res.status !== 201 && i < 240; i++) {
    // Meanwhile the gateway answers for the missing service with 503 and a Problem.
    if (res.status >= 400) expect([503, 504]).toContain(res.status);
    await sleep(250);
    res = await api.req("POST", "/v2/tags", { body: { space_id: spaceId, name: `after-${i}` } });
  }
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const back = Date.now() - killedAt;

  const now = api.stack.processes.catalog!;
  expect(now.pid).not.toBe(old.pid);
  expect(api.stack.restarts).toEqual({ catalog: 1 });
  expect(lines).toContainEqual(
    expect.stringMatching(
      new RegExp(
        `^\\[supervisor\\] catalog \\(pid ${old.pid}\\) killed by SIGKILL; restarting in \\d+ ms`,
      ),
    ),
  );
  expect(lines).toContainEqual(`[supervisor] catalog restarted (pid ${now.pid})`);
  console.info(`[supervision] catalog killed -9 and serving again after ${back} ms`);
}, 120_000);

it("does not restart what was stopped on purpose", async () => {
  await api.stack.restart("dataset");
  await sleep(2_000);
  expect(api.stack.restarts.dataset).toBeUndefined();
});
