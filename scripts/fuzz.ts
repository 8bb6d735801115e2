// `./argus fuzz`: Schemathesis against a throw-away stack (it revokes keys and deletes what it
// finds): its own Postgres database and NATS stream, every process on free ports. First the
// routes outside /v2 (POST /v1/traces, POST /v1/pandas_arrow: test/fuzz/v1-routes.openapi.yaml)
// as a member of one space, then the hand-made Arrow bodies of test/fuzz/arrowCases.ts against
// /v1/pandas_arrow (random bytes never get past its first check). Then two runs over every
// operation of the served /v2 document: as that member (object-level authorization judged
// against an outsider in another space), then as the account admin. Exits non-zero on any
// failure that test/fuzz/known-exceptions.txt does not excuse (a refused schema-valid request is
// listed only, see fuzz/summary.ts), on any wrong answer to an Arrow body, and on any 5xx the
// gateway logged.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDocument } from "@argus/gateway";
import { exceptionsToml, readKnownExceptions } from "./fuzz/exceptions.ts";
import { runArrowCorpus, type CorpusReport } from "./fuzz/arrowCorpus.ts";
import { createFixtures, fixtureSpace, fixturesToml } from "./fuzz/fixtures.ts";
import { fuzzIdentities, type Identity } from "./fuzz/identities.ts";
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

/** Starts everything (registering how to stop it in `cleanup`), then fuzzes as each identity. */
async function fuzz(): Promise<{
  reports: { name: string; report: RunReport }[];
  corpus: CorpusReport | undefined;
  identities: Identity[];
}> {
  const reports: { name: string; report: RunReport }[] = [];
  let corpus: CorpusReport | undefined;
  const stack = await startFuzzStack(cleanup, onLine);
  const { firstSpace } = stack;

  const fuzzers = await fuzzIdentities(stack.baseUrl, stack.apiKey);
  const { identities } = fuzzers;
  const broker = await startKeyBroker(identities);
  cleanup.unshift(broker.close);
  // Each identity's run gets test data in the space it works in (made before either run).
  // The member works in its one space; the admin deletes spaces, so it gets fresh ones.
  const space = (name: string) => fixtureSpace(stack.baseUrl, stack.apiKey, fuzzers.orgId, name);
  const operations = Object.entries(loadDocument().document.paths).flatMap(([path, item]) =>
    (["get", "put", "post", "delete", "patch"] as const)
      .filter((m) => item[m])
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
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
  if (opts.runs.includes("member"))
    fixtures.member = await fixture(
      "member",
      [fuzzers.memberSpaceId],
      async () => fuzzers.memberSpaceId,
    );
  if (opts.runs.includes("admin"))
    fixtures.admin = await fixture("admin", [firstSpace, await space("kept")], () =>
      space(`doomed ${doomed++}`),
    );
  // The non-/v2 routes first, as the member in its own space, while nothing is deleted yet.
  // The member next: the admin's run deletes spaces and revokes keys, the member's cannot.
  // Object-level authorization is judged in the member's run, against the outsider.
  const served = `${stack.baseUrl}/v2/spec.yaml`;
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
  ].filter((r) => opts.runs.includes(r.name));
  for (const { name, as, peers, document, config } of runs) {
    console.log(
      `\n== schemathesis ${name}: ${document === served ? "/v2" : "the non-/v2 routes"} as ${as} (${opts.examples} examples per operation, seed ${opts.seed})`,
    );
    const report = await runSchemathesis({
      ...opts,
      name,
      document,
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
  return { reports, corpus, identities };
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
