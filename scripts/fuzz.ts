// `./argus fuzz`: Schemathesis against a throw-away stack (it revokes keys and deletes what it
// finds): its own Postgres database and NATS stream, every process on free ports. Two runs over
// every operation of the served document: as a member of one space (object-level authorization
// judged against an outsider in another), then as the account admin. Exits non-zero on any
// failure that test/fuzz/known-exceptions.txt does not excuse (a refused schema-valid request is
// listed only, see fuzz/summary.ts), and on any 5xx the gateway logged.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDocument } from "@argus/gateway";
import { exceptionsToml, readKnownExceptions } from "./fuzz/exceptions.ts";
import { createFixtures, fixtureSpace, fixturesToml } from "./fuzz/fixtures.ts";
import { fuzzIdentities, type Identity } from "./fuzz/identities.ts";
import { startKeyBroker } from "./fuzz/keyBroker.ts";
import { fuzzOptions } from "./fuzz/options.ts";
import { runSchemathesis, type RunReport } from "./fuzz/schemathesis.ts";
import { startFuzzStack } from "./fuzz/stack.ts";
import { printSummary } from "./fuzz/summary.ts";
import { createTally } from "./fuzz/tally.ts";

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
  reports: { as: string; report: RunReport }[];
  identities: Identity[];
}> {
  const reports: { as: string; report: RunReport }[] = [];
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
  const fixtures: Record<string, string> = {
    member: await fixture("member", [fuzzers.memberSpaceId], async () => fuzzers.memberSpaceId),
    admin: await fixture("admin", [firstSpace, await space("kept")], () =>
      space(`doomed ${doomed++}`),
    ),
  };
  // The member first: the admin's run deletes spaces and revokes keys, the member's cannot.
  // Object-level authorization is judged in the member's run, against the outsider.
  const runs = [
    { as: "member", peers: ["member", "outsider"] },
    { as: "admin", peers: [] },
  ];
  for (const { as, peers } of runs) {
    console.log(
      `\n== schemathesis as ${as} (${opts.examples} examples per operation, seed ${opts.seed})`,
    );
    const report = await runSchemathesis({
      ...opts,
      baseUrl: stack.baseUrl,
      identities: identities.map((i) => i.name),
      keyBrokerUrl: broker.url,
      as,
      peers,
      exceptionsToml: exceptionsToml(exceptions),
      fixturesToml: fixtures[as]!,
    });
    reports.push({ as, report });
  }
  return { reports, identities };
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
  tally,
  reportDir: opts.reportDir,
});
process.exit(failed ? 1 : 0);
