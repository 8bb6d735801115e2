import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SDK_GROUPS, ensurePythonSdk, runSdkGroup } from "./python-sdk.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";
import { startApi, type Api } from "./support.ts";

// Issue 13: every operation of the groups Argus serves, through the official Python SDK's
// high-level clients, one script per group (python-sdk.ts, SDK_GROUPS); all against one stack.

let api: Api;
// The model a RUN_EXPERIMENT task's generation calls (tasks group).
let llm: FakeLlm;
beforeAll(async () => {
  await ensurePythonSdk();
  llm = await startFakeLlm();
  api = await startApi({
    env: { ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true", ARGUS_TASK_ALLOW_LOOPBACK: "true" },
  });
}, 300_000);
afterAll(async () => {
  await api?.stop();
  await llm?.close();
});

describe("the Python SDK's high-level clients, group by group", () => {
  it.each(Object.keys(SDK_GROUPS))(
    "%s",
    async (group) => {
      const out = await runSdkGroup(group, api.stack, { ARGUS_FAKE_LLM_URL: llm.baseUrl });
      expect(out.group).toBe(group);
      expect(out.exceptions.map(({ op, error }) => ({ op, error }))).toEqual([]);
      expect(out.mismatches).toEqual([]);
      expect(out.ops).toEqual(expect.arrayContaining(SDK_GROUPS[group]!.split(" ")));
    },
    180_000,
  );
});
