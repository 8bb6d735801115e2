import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CorpusReport } from "./arrowCorpus.ts";
import type { KnownException } from "./exceptions.ts";
import type { Identity } from "./identities.ts";
import type { RunReport } from "./schemathesis.ts";
import type { Tally } from "./tally.ts";

/** Schemathesis failure types (its `Failure` subclass names, stable across versions), by kind. */
const KINDS: Record<string, string> = {
  ServerError: "server error",
  ContentTypeServerError: "server error",
  UndefinedStatusCode: "schema violation",
  MissingContentType: "schema violation",
  UndefinedContentType: "schema violation",
  MalformedMediaType: "schema violation",
  MissingHeaders: "schema violation",
  JsonSchemaError: "schema violation",
  MalformedJson: "schema violation",
  ContentDeserializationError: "schema violation",
  DiscriminatorMismatch: "schema violation",
  AcceptedNegativeData: "negative data accepted",
  RejectedPositiveData: "positive data rejected",
};

/**
 * Reported, not gated: a schema-valid request may rightly be refused for what a schema cannot
 * say (an id of the wrong type, a cursor the server did not sign, text the store cannot hold,
 * a rule across fields). Everything else fails the run.
 */
const ADVISORY = new Set(["RejectedPositiveData"]);

const kindOf = (type: string) => KINDS[type] ?? "other check";

/**
 * Schemathesis applies an operation's switched-off check to that operation's own phases, not
 * to the stateful phase, which reports object-level authorization under "Stateful tests". Such
 * a failure is excused when every object it names (its `Owner: METHOD /path` lines in the
 * JUnit report) is an operation known-exceptions.txt excuses from that check.
 */
function statefulExcused(
  junitPath: string,
  type: string,
  exceptions: readonly KnownException[],
): boolean {
  if (type !== "ObjectLevelAuthorizationViolation" || !existsSync(junitPath)) return false;
  const excused = exceptions
    .filter((e) => e.check === "object_level_authorization")
    .map((e) => {
      const [method, template = ""] = e.operation.split(" ");
      const path = template.replace(/\{[^}]+\}/g, "[^/]+").replace(/\//g, "\\/");
      return new RegExp(`^${method} ${path}$`);
    });
  const owners = [...readFileSync(junitPath, "utf8").matchAll(/Owner: ([A-Z]+) (\S+) as /g)];
  return (
    owners.length > 0 &&
    owners.every(([, method, path]) => excused.some((re) => re.test(`${method} ${path}`)))
  );
}

/** Prints the totals of both runs; true when the fuzz failed. */
export function printSummary(r: {
  exceptions: readonly KnownException[];
  seconds: number;
  reports: { name: string; report: RunReport }[];
  /** The hand-made Arrow bodies' answers (with the v1 run). */
  corpus: CorpusReport | undefined;
  /** The runs asked for: one missing fails the fuzz. */
  runs: readonly string[];
  tally: Tally;
  identities: Pick<Identity, "name" | "replaced">[];
  reportDir: string;
}): boolean {
  let failed = r.reports.length < r.runs.length;
  console.log(`\n== fuzz totals (${r.seconds} s in all)`);
  // An operation is never past 404 as anyone when every run over its document says so; the
  // /v2 document has two runs, the non-/v2 routes' one.
  const neverByDocument = new Map<string, Set<string>[]>();
  for (const { name, report } of r.reports) {
    const document = name === "v1" ? "v1" : "v2";
    neverByDocument.set(document, [
      ...(neverByDocument.get(document) ?? []),
      new Set(report.warnings.missing_test_data ?? []),
    ]);
  }
  for (const { name, report } of r.reports) {
    const totals: Record<string, number> = {};
    for (const f of report.failures)
      totals[kindOf(f.type)] = (totals[kindOf(f.type)] ?? 0) + f.count;
    const never = report.warnings.missing_test_data ?? [];
    console.log(
      `  ${name}: ${report.test_cases.generated} test cases in ${Math.round(report.running_time)} s; ` +
        `${report.operations?.tested ?? 0}/${report.operations?.selected ?? 0} operations tested; ` +
        [
          "server error",
          "schema violation",
          "negative data accepted",
          "other check",
          "positive data rejected",
        ]
          .map((k) => `${k}s ${totals[k] ?? 0}`)
          .join(", ") +
        `; ${report.errors.length} errors; ${never.length} operations never past 404`,
    );
    const junit = join(r.reportDir, name, "junit.xml");
    const passes = (f: RunReport["failures"][number]) =>
      ADVISORY.has(f.type) ||
      (f.operations.every((o) => o === "Stateful tests") &&
        statefulExcused(junit, f.type, r.exceptions));
    for (const f of report.failures) {
      const gate = ADVISORY.has(f.type) ? "advisory" : passes(f) ? "excused" : "FAIL";
      console.log(`    [${gate}] ${f.code} ${f.title} ×${f.count}: ${f.operations.join(", ")}`);
    }
    for (const e of report.errors) console.log(`    [FAIL] error: ${e.title} ×${e.count}`);
    if (report.errors.length > 0 || report.failures.some((f) => !passes(f))) failed = true;
    if (report.exit_code !== 0 && report.failures.length === 0 && report.errors.length === 0)
      failed = true;
  }
  if (r.runs.includes("v1")) {
    const c = r.corpus;
    const statuses = Object.entries(c?.statuses ?? {})
      .map(([s, n]) => `${s} ×${n}`)
      .join(", ");
    console.log(
      `  hand-made Arrow bodies: ${c?.cases ?? 0} posted (${statuses}); ${c?.failures.length ?? 0} wrong answers`,
    );
    for (const f of c?.failures ?? []) console.log(`    [FAIL] ${f}`);
    if (!c || c.cases === 0 || c.failures.length > 0) failed = true;
  }
  const neverAtAll = [...neverByDocument.values()].flatMap((sets) =>
    [...sets[0]!].filter((l) => sets.every((s) => s.has(l))),
  );
  console.log(`  never past 404 as anyone: ${neverAtAll.length}`);
  for (const label of neverAtAll) console.log(`    ${label}`);
  const classes = Object.entries(r.tally.byClass)
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  console.log(
    `  gateway: ${r.tally.responses} responses (${classes}); ${r.tally.serverErrors.length} server errors logged`,
  );
  for (const e of r.tally.serverErrors.slice(0, 50)) console.log(`    ${e}`);
  if (r.tally.serverErrors.length > 0) failed = true;
  for (const i of r.identities)
    if (i.replaced > 0)
      console.log(`  the fuzzer revoked or refreshed the ${i.name}'s key; replaced ${i.replaced}×`);
  writeFileSync(
    join(r.reportDir, "gateway-statuses.json"),
    JSON.stringify(r.tally.byRoute, null, 1),
  );
  console.log(`  reports: ${r.reportDir} (gateway-statuses.json: every operation's statuses)`);
  console.log(failed ? "FUZZ FAILED" : "fuzz passed");
  return failed;
}
