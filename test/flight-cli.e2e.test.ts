import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { uniqueName } from "@argus/testkit";
import { ensurePythonSdk, root, run } from "./python-sdk.ts";
import { recentWindow, sendSpans } from "./spans-support.ts";
import { startApi, type Api, type Json } from "./support.ts";

/**
 * The `ax` CLI (arize-ax-cli 0.39.0, `./argus python-sdk` installs it in .tools/ax-cli) pointed
 * at the stack's one address, as an on-premises profile names it: `ax experiments run` always
 * goes over Arrow Flight (create_experiment_db_entry, getDataset, postExperimentData), and so
 * does `ax spans export --all` (GetFlightInfo + DoGet).
 */

/**
 * The CLI's script run by its virtualenv's own python, not through its `#!` line: a
 * virtualenv's scripts name the path it was made at, which need not be this checkout's.
 */
const ax = (args: string[], timeout: number) =>
  run(`${root}.tools/ax-cli/bin/python`, [`${root}.tools/ax-cli/bin/ax`, ...args], {
    cwd: root,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      DISABLE_PRERELEASE_WARNING: "true",
      NO_COLOR: "1",
    },
  });
let api: Api;
let home: string;

beforeAll(async () => {
  await ensurePythonSdk();
  api = await startApi();
  home = mkdtempSync(join(tmpdir(), "ax-home-"));
  mkdirSync(join(home, ".arize", "profiles"), { recursive: true });
  const port = new URL(api.stack.baseUrl).port;
  writeFileSync(
    join(home, ".arize", "profiles", "argus.toml"),
    [
      "[profile]",
      'name = "argus"',
      "[auth]",
      'auth_method = "api-key"',
      `api_key = "${api.stack.apiKey}"`,
      "[routing]",
      'single_host = "127.0.0.1"',
      `single_port = "${port}"`,
      'api_scheme = "http"',
      'app_scheme = "http"',
      'otlp_scheme = "http"',
      'flight_scheme = "grpc"',
      "[output]",
      'format = "json"',
      "",
    ].join("\n"),
  );
  writeFileSync(join(home, ".arize", ".active_profile"), "argus");
}, 300_000);
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await api?.stop();
});

it("ax experiments run over 600 examples through one address: every run stored, read back through REST", async () => {
  const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
  const dataset = await api.ok("POST", "/v2/datasets", {
    name: uniqueName("ax-ds"),
    space_id: spaceId,
    examples: Array.from({ length: 600 }, (_, i) => ({ question: `q${i}` })),
  });
  const task = join(home, "task.py");
  writeFileSync(task, 'def task(dataset_row):\n    return dataset_row["question"].upper()\n');
  const name = uniqueName("ax-run");
  await ax(
    ["experiments", "run", "--name", name, "--dataset", dataset.id, "--task", task, "-c", "8"],
    600_000,
  );
  const experiments = await api.ok(
    "GET",
    `/v2/experiments?dataset_id=${encodeURIComponent(dataset.id)}`,
  );
  const experiment = (experiments.experiments as Json[]).find((e) => e.name === name);
  expect(experiment, JSON.stringify(experiments)).toBeDefined();
  const runs: Json[] = [];
  let cursor = "";
  do {
    const page = await api.ok(
      "GET",
      `/v2/experiments/${experiment!.id}/runs?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    runs.push(...(page.experiment_runs as Json[]));
    cursor = page.pagination?.next_cursor ?? "";
  } while (cursor);
  expect(runs).toHaveLength(600);
  expect(runs.map((r) => r.output).sort()).toEqual(
    Array.from({ length: 600 }, (_, i) => `Q${i}`).sort(),
  );
  expect(new Set(runs.map((r) => r.example_id)).size).toBe(600);
}, 900_000);

it("ax spans export --all (Flight GetFlightInfo + DoGet): every span of the project, as REST lists them", async () => {
  const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
  const projectName = uniqueName("ax-spans");
  const sent = await sendSpans(api.stack, {
    spaceId,
    projectName,
    traces: 500,
    spansPerTrace: 4,
  });
  const { stdout } = await ax(
    ["spans", "export", projectName, "--space", spaceId, "--all", "--stdout"],
    300_000,
  );
  const exported = JSON.parse(stdout.slice(stdout.indexOf("["))) as Json[];
  expect(exported).toHaveLength(2000);
  const listed = new Map<string, Json>();
  const window = recentWindow();
  let cursor = "";
  do {
    const page = await api.ok(
      "POST",
      `/v2/spans?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      { project_id: sent.projectId, ...window },
    );
    for (const s of page.spans as Json[]) listed.set(s.context.span_id as string, s);
    cursor = page.pagination.has_more ? (page.pagination.next_cursor as string) : "";
  } while (cursor);
  expect(listed.size).toBe(2000);
  expect(exported.map((r) => r["context.span_id"] as string).sort()).toEqual(
    [...sent.spanIds].sort(),
  );
  for (const r of exported) {
    const id = r["context.span_id"] as string;
    const span = listed.get(id)!;
    expect(r["context.trace_id"], id).toBe(span.context.trace_id);
    expect(r.name, id).toBe(span.name);
    expect(r.span_kind, id).toBe(span.kind);
    expect(r.parent_id ?? undefined, id).toBe(span.parent_id);
    expect(r.status_code, id).toBe(span.status_code);
    expect(r["attributes.openinference.span.kind"], id).toBe(
      span.attributes["openinference.span.kind"],
    );
  }
}, 600_000);
