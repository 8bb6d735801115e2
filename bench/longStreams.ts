import { Api } from "./datasets.ts";
import type { OperationBenchmark } from "./operations.ts";
import { withBenchStack } from "./stack.ts";

const LONG = 1000;
const SHORT = 10;
const VERSION = {
  commit_message: "bench",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [
    { role: "SYSTEM", content: "You are a careful assistant. Answer in one sentence." },
    { role: "USER", content: "Hello {name}, what is {topic}?" },
  ],
};

/**
 * A write on a resource with a long history (issue "Authorization at scale"'s rule: a
 * per-request cost must not grow with the size of the account): a new version of a prompt that
 * already has 1000 versions versus one of a prompt with 10 to 20, both through the API, one at a
 * time. Each version is an event of the prompt's stream, so a command that folds the whole stream
 * pays for every earlier version. The long prompt grows by the versions the benchmark adds; the
 * short side moves to a fresh prompt of 10 versions every 10 operations (made untimed).
 * Goal: p50 ratio ≤ 1.2.
 */
export async function longStreamBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, stop }) => {
    const api = new Api(stack);
    const spaceId = await api.defaultSpaceId();
    const prompt = async (name: string, versions: number) => {
      const { id } = await api.call<{ id: string }>("POST", "/v2/prompts", 201, {
        space_id: spaceId,
        name: `${name}-${Date.now()}`,
        version: VERSION,
      });
      for (let made = 1; made < versions; made++) await newVersion(id);
      return id;
    };
    const newVersion = (id: string) =>
      api.call<{ id: string }>("POST", `/v2/prompts/${id}/versions`, 201, VERSION);
    const pids = { gateway: stack.processes.gateway!.pid, catalog: stack.processes.catalog!.pid };
    const long = await prompt("long", LONG);
    let short = "";
    let shortOps = 0;
    return {
      kind: "operations",
      name: `a new prompt version: on a prompt of ${LONG} versions vs one of ${SHORT} to ${2 * SHORT}`,
      subject: {
        name: `${LONG} versions`,
        pids,
        run: () => newVersion(long).then(() => undefined),
      },
      baseline: {
        name: `${SHORT} versions`,
        pids,
        async prepare() {
          if (shortOps++ % SHORT === 0) short = await prompt("short", SHORT);
        },
        run: () => newVersion(short).then(() => undefined),
      },
      stop,
    };
  });
}
