import { randomUUID } from "node:crypto";
import { Field, Int64, Schema, Table, Utf8, tableToIPC, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, encodeId, fixedClock } from "@argus/platform";
import { Schema as ArizeSchema, Schema_Environment } from "@argus/proto/public/public";
import type { ExportRequest } from "@argus/proto/tracing/v1/tracing";
import { listenLocal } from "@argus/testkit";
import { createApp, createLimiters, type GatewayDeps } from "../src/app.ts";
import { requireColumnNames } from "../src/flight/pandasArrow.ts";
import { createGatewayServer } from "../src/http/httpLimits.ts";
import { KEYS, testConfig, unusedOperations } from "./startGateway.ts";

/**
 * `POST /v1/pandas_arrow` through the gateway's app, its backing services faked at their call
 * (the route's own checks are the subject): what the fuzz step's hand-made Arrow bodies found
 * (test/fuzz/arrowCases.ts), each now a 400 Problem or a 405 rather than a 500 or a 404.
 */

const SPACE = encodeId("Space", randomUUID());
const exported: ExportRequest[] = [];
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const config = testConfig({ otlp: { maxBodyBytes: 1 << 20, grpcPort: 0 } });
  const clock = fixedClock(new Date(0));
  const unused = async (): Promise<never> => {
    throw new Error("not reached");
  };
  const deps: GatewayDeps = {
    authenticator: {
      authenticate: async (rawKey) => KEYS[rawKey] ?? Promise.reject(new Error("no such key")),
    },
    handlers: unusedOperations(),
    config,
    logger: createLogger({ service: "gateway-test", write: () => {} }),
    ready: async () => true,
    clock,
    limiters: createLimiters(config, clock),
    traceExport: async (request) => {
      exported.push(request);
      return { rejectedSpans: 0n, errorMessage: "" };
    },
    spanWrites: { readEvaluations: unused, writeEvaluations: unused },
  };
  const server = createGatewayServer(createApp(deps), {
    errorsBase: config.errorsBase,
    logger: deps.logger,
  });
  url = `http://127.0.0.1:${await listenLocal(server)}/v1/pandas_arrow`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

const arizeSchema = Buffer.from(
  ArizeSchema.encode(
    ArizeSchema.fromJSON({
      constants: { modelId: "proj", environment: Schema_Environment.TRACING },
    }),
  ).finish(),
).toString("base64");

const START = 1_795_960_124_474_430_976n;

function spans(start: bigint[], nameColumn = "name"): Table {
  return new Table({
    "context.span_id": vectorFromArray(["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"], new Utf8()),
    "context.trace_id": vectorFromArray(["c".repeat(32), "c".repeat(32)], new Utf8()),
    [nameColumn]: vectorFromArray(["root", "child"], new Utf8()),
    start_time: vectorFromArray(start, new Int64()),
  });
}

async function post(table: Table) {
  table.schema.metadata.set("arize-schema", arizeSchema);
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: "ak-alice", "arize-space-id": SPACE },
    body: tableToIPC(table, "stream"),
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: (await res.json()) as Record<string, unknown>,
  };
}

describe("POST /v1/pandas_arrow: bodies the fuzz step found", () => {
  it("a start_time before the epoch is a 400 naming its row, not a 500", async () => {
    const answer = await post(spans([START, -1n]));
    expect(answer).toMatchObject({
      status: 400,
      type: "application/problem+json; charset=utf-8",
      body: {
        status: 400,
        detail:
          'row 1, column "start_time" must be nanoseconds since the epoch (0 to 2^64 - 1), not -1',
      },
    });
    expect(exported).toEqual([]);
  });

  it("at the epoch itself the same upload is exported", async () => {
    const answer = await post(spans([START, 0n]));
    expect(answer).toEqual({
      status: 200,
      type: "application/json; charset=utf-8",
      body: { spans_logged: 2 },
    });
    expect(exported).toHaveLength(1);
    exported.length = 0;
  });

  it("a column with no name is a 400 naming its position, not a 500", async () => {
    const answer = await post(spans([START, START], ""));
    expect(answer).toMatchObject({
      status: 400,
      body: { detail: "column 2 of the Arrow schema has no name" },
    });
    expect(exported).toEqual([]);
  });

  it("a field whose name is absent from the IPC schema (read as null) is refused alike", () => {
    // apache-arrow's writer always writes a name; a stream from elsewhere (or a mutated one, as
    // the fuzz step found) may not, and its reader then gives null.
    const unnamed = new Schema([
      new Field("context.span_id", new Utf8()),
      new Field(null as unknown as string, new Utf8()),
    ]);
    expect(() => requireColumnNames(unnamed)).toThrow("column 1 of the Arrow schema has no name");
    expect(() => requireColumnNames(spans([START, START]).schema)).not.toThrow();
  });

  it("another method is 405 with Allow: POST, as the document's paths answer", async () => {
    const res = await fetch(url);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });
});
