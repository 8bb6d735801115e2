import { beforeAll, expect, it } from "vitest";
import { SDK_GROUPS, ensurePythonSdk, runSdkGroup } from "./python-sdk.ts";
import { describeContainers } from "./container-support.ts";

// The official Python SDK's smoke against the containerized gateway: groups that cross every
// service and both OTLP transports (spans; experiments.run exports its task's spans over
// OTLP/gRPC), with the same expectations as the full suite (python-sdk-groups.e2e.test.ts).
const SMOKE = ["projects", "datasets", "experiments", "spans", "audit_logs"];

describeContainers("the Python SDK against the containerized gateway", (ref) => {
  beforeAll(async () => {
    await ensurePythonSdk();
  }, 300_000);

  it.each(SMOKE)(
    "%s",
    async (group) => {
      const out = await runSdkGroup(group, ref.stack);
      expect(out.group).toBe(group);
      expect(out.exceptions.map(({ op, error }) => ({ op, error }))).toEqual([]);
      expect(out.mismatches).toEqual([]);
      expect(out.ops).toEqual(expect.arrayContaining(SDK_GROUPS[group]!.split(" ")));
    },
    180_000,
  );
});
