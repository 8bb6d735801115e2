import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface RunSpec {
  schemathesis: string;
  baseUrl: string;
  /** The run's name: its reports go to `<reportDir>/<name>`. */
  name: string;
  /** The document fuzzed: a URL or a file. */
  document: string;
  /** Identity names, in the order Schemathesis tries them; the key broker hands out their keys. */
  identities: string[];
  keyBrokerUrl: string;
  /** The identity every request is sent as. */
  as: string;
  /** Identities that must not see each other's objects (none, or at least two). */
  peers: string[];
  examples: number;
  seed: number;
  workers: number;
  /** `[[operations]]` tables of the known exceptions. */
  exceptionsToml: string;
  /** Dictionaries of test data and the parameters they feed. */
  fixturesToml: string;
  extraArgs: string[];
  reportDir: string;
}

/** The parts of Schemathesis's JSON report (`--report json`) the gate reads. */
export interface RunReport {
  exit_code: number;
  running_time: number;
  operations: { total: number; selected: number; tested: number; errored: number } | null;
  test_cases: {
    generated: number;
    with_failures: number;
    unique_failures: number;
    errored: number;
  };
  failures: { type: string; code: string; title: string; count: number; operations: string[] }[];
  errors: { title: string; count: number }[];
  warnings: Record<string, string[]>;
}

function writeConfig(spec: RunSpec, dir: string): string {
  const auth = join(dir, "auth.json");
  writeFileSync(
    auth,
    JSON.stringify({
      auth: spec.identities.map((name) => ({
        name,
        loginEndpointAuth: {
          externalEndpointURL: `${spec.keyBrokerUrl}/${name}`,
          verb: "POST",
          token: {
            extractFrom: "body",
            extractSelector: "/key",
            sendIn: "header",
            sendName: "Authorization",
            sendTemplate: "Bearer {token}",
          },
        },
      })),
    }),
    { mode: 0o600 },
  );
  const config = join(dir, "schemathesis.toml");
  writeFileSync(
    config,
    [
      // A fixed seed reproduces a run only without the example database of earlier runs.
      `[generation]\ndatabase = "none"\n`,
      `[auth.wfc]\npath = ${JSON.stringify(auth)}\nuser = ${JSON.stringify(spec.as)}`,
      spec.peers.length > 1 ? `peers = ${JSON.stringify(spec.peers)}\n` : "",
      spec.fixturesToml,
      spec.exceptionsToml,
    ].join("\n"),
  );
  return config;
}

/**
 * One Schemathesis run over every operation of a document (the served one, or the non-/v2
 * routes' of test/fuzz): every check, positive and
 * negative data, all phases including the stateful one. Its own report (pytest-like) goes to
 * `schemathesis.log` beside the JSON and JUnit reports, not to our stdout: CI reads a run's
 * closing lines, and ours (the fuzz totals, then the tests line) must be the only ones there.
 */
export async function runSchemathesis(spec: RunSpec): Promise<RunReport> {
  const dir = join(spec.reportDir, spec.name);
  mkdirSync(dir, { recursive: true });
  const config = writeConfig(spec, dir);
  const reportPath = join(dir, "report.json");
  const args = [
    "--config-file",
    config,
    "run",
    spec.document,
    "--url",
    spec.baseUrl,
    "--checks",
    "all",
    "--mode",
    "all",
    "--phases",
    "examples,coverage,fuzzing,stateful",
    "--seed",
    String(spec.seed),
    "--max-examples",
    String(spec.examples),
    "--workers",
    String(spec.workers),
    // A failure stops nothing: the rest of an operation's cases still run (and reach further).
    "--continue-on-failure",
    "--request-timeout",
    "30",
    "--no-color",
    "--report",
    "json,junit",
    "--report-json-path",
    reportPath,
    "--report-junit-path",
    join(dir, "junit.xml"),
    ...spec.extraArgs,
  ];
  const logPath = join(dir, "schemathesis.log");
  const log = openSync(logPath, "w");
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(spec.schemathesis, args, { cwd: dir, stdio: ["ignore", log, log] });
    child.once("error", reject);
    child.once("exit", resolve);
  }).finally(() => closeSync(log));
  console.log(`schemathesis ${spec.name}: exit ${code}, its report in ${logPath}`);
  try {
    return JSON.parse(readFileSync(reportPath, "utf8")) as RunReport;
  } catch (err) {
    throw new Error(`schemathesis exited ${code} without a report at ${reportPath}`, {
      cause: err,
    });
  }
}
