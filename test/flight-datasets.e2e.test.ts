import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "@argus/testkit";
import { ensurePythonSdk, python, root, run } from "./python-sdk.ts";
import { startApi, type Api, type Json } from "./support.ts";

/**
 * The official Python SDK's bulk paths against the stack, over Arrow Flight (docs/architecture.md,
 * "Bulk paths (Arrow Flight)"): what it uploads and downloads is read back through REST and
 * compared, on the Flight port and on the single address (REST, OTLP and Flight on one port).
 */

let api: Api;
let db: pg.Pool;
/** One Arrow batch of the refusal cases' "over the limit" upload is larger than this. */
const FLIGHT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

beforeAll(async () => {
  await ensurePythonSdk();
  api = await startApi({
    env: { ARGUS_FLIGHT_MAX_MESSAGE_BYTES: String(FLIGHT_MAX_MESSAGE_BYTES) },
  });
  db = new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=dataset",
    max: 2,
  });
}, 300_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

async function all(path: string, key: string): Promise<Json[]> {
  const out: Json[] = [];
  let cursor = "";
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res = await api.req(
      "GET",
      `${path}${sep}limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(res.status).toBe(200);
    out.push(...(res.body[key] as Json[]));
    cursor = res.body.pagination?.next_cursor ?? "";
  } while (cursor);
  return out;
}

/** Row i as the script uploads it, as REST shows it: bools were sent as "True"/"False". */
function expectedExample(i: number): Json {
  return {
    question: `q${i} ${"é".repeat(i % 3)}`,
    n: i,
    score: i / 4,
    metadata: { k: i, tag: `t${i % 7}` },
    flag: i % 2 === 0 ? "True" : "False",
    "attributes.extra": { a: i },
    ...(i % 5 ? { maybe: i } : {}),
  };
}

const SYSTEM = new Set(["id", "created_at", "updated_at", "annotations"]);

/** A record's user fields, without values that are none. */
const fieldsOf = (r: Json): Json =>
  Object.fromEntries(
    Object.entries(r).filter(([k, v]) => !SYSTEM.has(k) && v !== null && v !== undefined),
  );

const readJson = (dir: string, name: string): Json[] =>
  JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as Json[];

describe.each(["ports", "single"])("the SDK over Flight (%s)", (mode) => {
  let out: Json;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flight-e2e-"));
    const { stdout } = await run(
      python,
      [
        "test/python/flight_datasets.py",
        api.stack.baseUrl,
        api.stack.apiKey,
        api.stack.flightAddress,
        api.stack.otlpGrpcAddress,
        mode,
        dir,
      ],
      { cwd: root, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
    );
    out = JSON.parse(stdout.trim().split("\n").at(-1)!) as Json;
  }, 900_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("datasets.create of 10 000 rows: REST reads every example as uploaded, in order", async () => {
    const examples = await all(`/v2/datasets/${out.dataset_id}/examples`, "examples");
    expect(examples).toHaveLength(10_000);
    expect(examples.map(fieldsOf)).toEqual(
      Array.from({ length: 10_000 }, (_, i) => expectedExample(i)),
    );
    const dataset = await api.ok("GET", `/v2/datasets/${out.dataset_id}`);
    expect(dataset.versions).toHaveLength(1);
  });

  it("list_examples(all=True) and export_to_parquet read the same examples as REST", async () => {
    const rest = await all(`/v2/datasets/${out.dataset_id}/examples`, "examples");
    const listed = readJson(dir, "list_examples");
    expect(out.list_examples_has_more).toBe(false);
    expect(listed.map((e) => e.id)).toEqual(rest.map((e) => e.id));
    // Dicts outside the SDK's JSON columns come back as their JSON text.
    const flightView = (e: Json) => ({
      ...fieldsOf(e),
      "attributes.extra": JSON.parse(e["attributes.extra"] as string),
    });
    expect(listed.map(flightView)).toEqual(rest.map(fieldsOf));
    const parquet = readJson(dir, "examples_parquet");
    expect(parquet.map((e) => e.id)).toEqual(rest.map((e) => e.id));
    expect(parquet.map((e) => [e.created_at, e.updated_at])).toEqual(
      rest.map((e) => [Date.parse(e.created_at), Date.parse(e.updated_at)]),
    );
    expect(
      parquet.map((e) => ({
        ...flightView(e),
        metadata: JSON.parse(e.metadata as string),
      })),
    ).toEqual(rest.map(fieldsOf));
    expect(out.examples_parquet_schema).toMatchObject({
      id: "string",
      created_at: "int64",
      updated_at: "int64",
      question: "string",
      n: "int64",
      score: "double",
      metadata: "string",
      maybe: "double",
    });
  });

  it("experiments.create of 1 200 runs, list_runs(all=True) and export_to_parquet agree with REST", async () => {
    const rest = await all(`/v2/experiments/${out.experiment_id}/runs`, "experiment_runs");
    const examples = await all(`/v2/datasets/${out.dataset_id}/examples`, "examples");
    expect(rest.map((r) => [r.example_id, r.output, r["eval.ok.score"], r.note])).toEqual(
      Array.from({ length: 1200 }, (_, i) => [examples[i]!.id, `answer ${i}`, i % 2, `n${i}`]),
    );
    for (const name of ["list_runs", "runs_parquet"]) {
      const got = readJson(dir, name);
      expect(got.map((r) => [r.id, r.example_id, r.output, r["eval.ok.score"], r.note])).toEqual(
        rest.map((r) => [r.id, r.example_id, r.output, r["eval.ok.score"], r.note]),
      );
    }
  });

  it("experiments.run over 600 examples: runs and evaluations stored, task spans in the named project", async () => {
    expect(out.run_statuses).toEqual(["COMPLETED"]);
    const rest = await all(`/v2/experiments/${out.run_experiment_id}/runs`, "experiment_runs");
    const examples = await all(`/v2/datasets/${out.run_dataset_id}/examples`, "examples");
    expect(rest).toHaveLength(600);
    const question = new Map(examples.map((e) => [e.id, e.question as string]));
    for (const r of rest) {
      expect(r.output).toBe(question.get(r.example_id)!.toUpperCase());
      expect(r["eval.exact.score"]).toBe(1);
      expect(r.execution_status).toBe("COMPLETED");
    }
    expect(new Set(rest.map((r) => r.example_id)).size).toBe(600);
    const ran = readJson(dir, "ran_runs");
    expect(ran.map((r) => [r.id, r.output])).toEqual(rest.map((r) => [r.id, r.output]));
    expect(out.run_traces_missing).toEqual([]);
    expect(out.spans_traced).toBeGreaterThanOrEqual(600);
  });
});

describe("refusals", () => {
  it("each is a gRPC status with a message, and nothing is written", async () => {
    const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
    const orgId = (await api.ok("GET", "/v2/organizations")).organizations[0].id as string;
    const privateSpace = await api.ok("POST", "/v2/spaces", {
      organization_id: orgId,
      name: uniqueName("private"),
      is_private: true,
    });
    const otherSpace = await api.ok("POST", "/v2/spaces", {
      organization_id: orgId,
      name: uniqueName("other"),
    });
    const privateDataset = await api.ok("POST", "/v2/datasets", {
      name: uniqueName("private-ds"),
      space_id: privateSpace.id,
      examples: [{ q: "secret" }],
    });
    const serviceKey = async (role: string) =>
      (
        await api.ok("POST", "/v2/api-keys", {
          key_type: "SERVICE",
          name: uniqueName("flight"),
          organizations: [
            {
              org_id: orgId,
              role: { name: "READ_ONLY" },
              spaces: [{ space_id: otherSpace.id, role: { type: "PREDEFINED", name: role } }],
            },
          ],
        })
      ).key as string;
    const names = Object.fromEntries(
      ["wrong", "nokey", "other", "readonly", "binary", "big", "fits"].map((n) => [
        n,
        uniqueName(`refused-${n}`),
      ]),
    );
    // ~1 KiB a row: one batch of `big_rows` is over the stack's 4 MiB message limit.
    const ctx = {
      space_id: spaceId,
      key: api.stack.apiKey,
      other_key: await serviceKey("MEMBER"),
      read_only_key: await serviceKey("READ_ONLY"),
      private_space_id: privateSpace.id,
      private_dataset_id: privateDataset.id,
      other_space_id: otherSpace.id,
      unknown_dataset_id: Buffer.from("Dataset:01900000-0000-7000-8000-000000000000").toString(
        "base64",
      ),
      names,
      big_rows: 4500,
      fits_rows: 3000,
    };
    const { stdout } = await run(
      python,
      ["test/python/flight_refusals.py", `grpc://${api.stack.flightAddress}`, JSON.stringify(ctx)],
      { cwd: root, timeout: 300_000 },
    );
    const got = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<
      string,
      { type: string; message: string }
    >;
    const expectRefused = (name: string, type: string, says: RegExp) => {
      expect(got[name]?.type, `${name}: ${JSON.stringify(got[name])}`).toBe(type);
      expect(got[name]!.message, name).toMatch(says);
    };
    expectRefused("wrong key", "FlightUnauthenticatedError", /missing or invalid API key/);
    expectRefused("no key", "FlightUnauthenticatedError", /auth-token-bin/);
    expectRefused("other space's key reads", "ArrowKeyError", /dataset not found/);
    expectRefused("other space's key writes", "ArrowKeyError", /not found/);
    expectRefused(
      "read-only key writes",
      "FlightUnauthorizedError",
      /DATASET_CREATE|not allowed|forbidden/i,
    );
    expectRefused("unknown dataset", "ArrowKeyError", /dataset not found/);
    expectRefused("malformed descriptor", "ArrowInvalid", /descriptor's command is not UTF-8 JSON/);
    expectRefused("descriptor of no request", "ArrowInvalid", /expected one of createDataset/);
    expectRefused("unsupported column type", "ArrowInvalid", /column "blob" has Arrow type Binary/);
    expect(got["batch over the size limit"]!.type).not.toBe("ok");
    expect(got["batch over the size limit"]!.message).toMatch(
      /larger than max|resource exhausted/i,
    );
    expect(got["batch under the size limit"]).toEqual({ type: "ok", message: "" });
    expect(got["unknown action"]!.type).not.toBe("ok");
    expect(got["unknown action"]!.message).toMatch(/"delete_dataset" is not served/);
    // Nothing of a refused upload exists, not even an event.
    for (const [n, name] of Object.entries(names)) {
      if (n === "fits") continue;
      const listed = await api.ok("GET", `/v2/datasets?name=${encodeURIComponent(name)}`);
      expect(listed.datasets, name).toEqual([]);
      const events = await db.query("select 1 from events where data->>'name' = $1", [name]);
      expect(events.rowCount, name).toBe(0);
    }
  }, 300_000);

  it("an upload cut off mid-way (the client killed) leaves nothing; sent again it goes through", async () => {
    const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
    const name = uniqueName("cut");
    const cut = await run(
      python,
      [
        "test/python/flight_refusals.py",
        `grpc://${api.stack.flightAddress}`,
        "cut",
        api.stack.apiKey,
        spaceId,
        name,
        "10",
        "5",
      ],
      { cwd: root, timeout: 120_000 },
    ).catch((err: { code?: unknown; signal?: unknown }) => err);
    expect((cut as { signal?: unknown }).signal).toBe("SIGKILL");
    // The gateway sees the connection go and cancels the upload; the service drops its staging.
    await expect
      .poll(
        async () => (await db.query("select 1 from imports where committed_at is null")).rowCount,
        { timeout: 30_000, interval: 250 },
      )
      .toBe(0);
    expect((await api.ok("GET", `/v2/datasets?name=${encodeURIComponent(name)}`)).datasets).toEqual(
      [],
    );
    expect((await db.query("select 1 from events where data->>'name' = $1", [name])).rowCount).toBe(
      0,
    );
    const whole = await run(
      python,
      [
        "test/python/flight_refusals.py",
        `grpc://${api.stack.flightAddress}`,
        "cut",
        api.stack.apiKey,
        spaceId,
        name,
        "10",
        "99",
      ],
      { cwd: root, timeout: 120_000 },
    );
    expect(JSON.parse(whole.stdout.trim().split("\n").at(-1)!)).toEqual({ finished: true });
    const [dataset] = (await api.ok("GET", `/v2/datasets?name=${encodeURIComponent(name)}`))
      .datasets as Json[];
    expect(await all(`/v2/datasets/${dataset!.id}/examples`, "examples")).toHaveLength(10_000);
  }, 300_000);
});
