// `./argus fuzz`: Schemathesis against throw-away stacks (it revokes keys and deletes what it
// finds), each its own Postgres database and NATS stream, every process on free ports. Two lanes
// side by side, a stack each: first the routes outside /v2 (POST /v1/traces,
// POST /v1/pandas_arrow: test/fuzz/v1-routes.openapi.yaml) as a member of one space, the
// hand-made Arrow bodies of test/fuzz/arrowCases.ts against /v1/pandas_arrow (random bytes never
// get past its first check), then every operation of the served /v2 document as that member
// (object-level authorization judged against an outsider in another space); beside them, every
// operation of the /v2 document as the account admin. Exits non-zero on any
// failure that test/fuzz/known-exceptions.txt does not excuse (a refused schema-valid request is
// listed only, see fuzz/summary.ts), on any wrong answer to an Arrow body, and on any 5xx the
// gateway logged.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDocument } from "@argus/gateway";
import { startInfra, type Infra } from "@argus/testkit";
import { exceptionsToml, readKnownExceptions } from "./fuzz/exceptions.ts";
import { runArrowCorpus, type CorpusReport } from "./fuzz/arrowCorpus.ts";
import { createFixtures, fixtureSpace, fixturesToml } from "./fuzz/fixtures.ts";
import { fuzzIdentities } from "./fuzz/identities.ts";
import { startKeyBroker } from "./fuzz/keyBroker.ts";
import { fuzzOptions } from "./fuzz/options.ts";
import { runSchemathesis, type RunReport } from "./fuzz/schemathesis.ts";
import { startFuzzStack } from "./fuzz/stack.ts";
import { printSummary } from "./fuzz/summary.ts";
import { createTally } from "./fuzz/tally.ts";
import { V1_DOCUMENT, v1RoutesToml } from "./fuzz/v1Routes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const opts = fuzzOptions(process.argv.slice(2), process.env, {
  reportDir: join(root, ".data/fuzz"),
  schemathesis: join(root, ".tools/schemathesis/bin/schemathesis"),
});
const exceptions = readKnownExceptions(join(root, "test/fuzz/known-exceptions.txt"));
rmSync(opts.reportDir, { recursive: true, force: true });

const started = Date.now();
const cleanup: (() => Promise<void>)[] = [];
const { tally, onLine } = createTally();
const served = "/v2/spec.yaml";
// Every operation of the served document, read once for both lanes' test data.
const operations = Object.entries(loadDocument().document.paths).flatMap(([path, item]) =>
  (["get", "put", "post", "delete", "patch"] as const)
    .filter((m) => item[m])
    .map((m) => `${m.toUpperCase()} ${path}`),
);

interface LaneResult {
  reports: { name: string; report: RunReport }[];
  corpus: CorpusReport | undefined;
  identities: { name: string; replaced: number }[];
}

/**
 * One lane of runs, in order, on a stack of its own (registering how to stop it in `cleanup`):
 * its identities, key broker and test data, made before its first run.
 */
async function lane(infra: Infra, names: string[]): Promise<LaneResult> {
  const reports: { name: string; report: RunReport }[] = [];
  let corpus: CorpusReport | undefined;
  const stack = await startFuzzStack(infra, cleanup, onLine);
  const { firstSpace } = stack;

  const fuzzers = await fuzzIdentities(stack.baseUrl, stack.apiKey);
  const { identities } = fuzzers;
  const broker = await startKeyBroker(identities);
  cleanup.unshift(broker.close);
  // Each identity's run gets test data in the space it works in.
  // The member works in its one space; the admin deletes spaces, so it gets fresh ones.
  const space = (name: string) => fixtureSpace(stack.baseUrl, stack.apiKey, fuzzers.orgId, name);
  const fixture = async (tag: string, kept: string[], doomedSpace: () => Promise<string>) =>
    fixturesToml(
      await createFixtures(stack.baseUrl, stack.apiKey, {
        orgId: fuzzers.orgId,
        kept,
        doomedSpace,
        operations,
        tag,
      }),
      operations,
    );
  let doomed = 0;
  const fixtures: Record<string, string> = {};
  if (names.includes("member"))
    fixtures.member = await fixture(
      "member",
      [fuzzers.memberSpaceId],
      async () => fuzzers.memberSpaceId,
    );
  if (names.includes("admin"))
    fixtures.admin = await fixture("admin", [firstSpace, await space("kept")], () =>
      space(`doomed ${doomed++}`),
    );
  // Object-level authorization is judged in the member's run, against the outsider.
  const runs = [
    {
      name: "v1",
      as: "member",
      peers: [],
      document: V1_DOCUMENT,
      config: v1RoutesToml(fuzzers.memberSpaceId),
    },
    { name: "member", as: "member", peers: ["member", "outsider"], document: served },
    { name: "admin", as: "admin", peers: [], document: served },
  ].filter((r) => names.includes(r.name));
  for (const { name, as, peers, document, config } of runs) {
    console.log(
      `\n== schemathesis ${name}: ${document === served ? "/v2" : "the non-/v2 routes"} as ${as} (${opts.examples} examples per operation, seed ${opts.seed})`,
    );
    const report = await runSchemathesis({
      ...opts,
      name,
      document: document === served ? stack.baseUrl + served : document,
      baseUrl: stack.baseUrl,
      identities: identities.map((i) => i.name),
      keyBrokerUrl: broker.url,
      as,
      peers,
      // Each run's document's own: a table naming an operation of the other one is noise.
      exceptionsToml: exceptionsToml(
        exceptions.filter((e) => e.operation.includes(" /v1/") === (name === "v1")),
      ),
      fixturesToml: config ?? fixtures[name]!,
    });
    reports.push({ name, report });
    if (name === "v1") {
      console.log(`\n== hand-made Arrow bodies for POST /v1/pandas_arrow as ${as}`);
      corpus = await runArrowCorpus({
        baseUrl: stack.baseUrl,
        key: () => identities.find((i) => i.name === as)!.key(),
        spaceId: fuzzers.memberSpaceId,
        seed: opts.seed,
      });
    }
  }
  const replaced = identities.map((i) => ({
    name: `${i.name} (${names.join(", ")})`,
    replaced: i.replaced,
  }));
  return { reports, corpus, identities: replaced };
}

/**
 * The lanes side by side on one Postgres and NATS: each run alone keeps about one of the two
 * cores busy (Schemathesis and the stack take turns), and the admin's run (it deletes spaces
 * and revokes keys) must not reach the member's objects, so it gets a stack of its own rather
 * than the member's turn.
 */
async function fuzz(): Promise<LaneResult> {
  const { infra, stop } = await startInfra();
  cleanup.unshift(stop);
  const lanes = [["v1", "member"], ["admin"]]
    .map((l) => l.filter((name) => opts.runs.includes(name)))
    .filter((l) => l.length > 0);
  const results = await Promise.all(lanes.map((l) => lane(infra, l)));
  return {
    reports: results.flatMap((r) => r.reports),
    corpus: results.find((r) => r.corpus)?.corpus,
    identities: results.flatMap((r) => r.identities),
  };
}

let result: Awaited<ReturnType<typeof fuzz>>;
try {
  result = await fuzz();
} finally {
  for (const stop of cleanup) await stop().catch((err: unknown) => console.error(err));
}

const failed = printSummary({
  exceptions,
  seconds: Math.round((Date.now() - started) / 1000),
  ...result,
  runs: opts.runs,
  tally,
  reportDir: opts.reportDir,
});
process.exit(failed ? 1 : 0);
