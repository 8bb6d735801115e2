import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { deflateSync, gzipSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as GrpcExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  DomainError,
  createLogger,
  encodeId,
  fixedClock,
  generateCallKeyPair,
  toGrpcError,
  type ProblemType,
} from "@argus/platform";
import { freePort } from "@argus/testkit";
import {
  ExportTraceServiceRequest,
  ExportTraceServiceResponse,
} from "@argus/proto/otlp/collector/trace/v1/trace_service";
import { Encoding, type ExportRequest, type ExportResponse } from "@argus/proto/tracing/v1/tracing";
import { createApp, createLimiters } from "../src/app.ts";
import { loadGatewayConfig, type GatewayConfig } from "../src/config.ts";
import type { GatewayDeps } from "../src/app.ts";
import type { Caller } from "../src/backend.ts";
import { createGatewayServer } from "../src/http/httpLimits.ts";
import { startOtlpGrpcServer, type RunningOtlpGrpc } from "../src/otlp/grpcServer.ts";
import type { TraceExport } from "../src/otlp/ingest.ts";
import { startGateway } from "../src/server.ts";
import { KEYS, testConfig, unusedOperations } from "./startGateway.ts";

const SPACE_UUID = randomUUID();
const SPACE = encodeId("Space", SPACE_UUID);
const LIMIT = 64 * 1024;
/** Any bytes: the gateway forwards the body without decoding it. */
const BODY = Buffer.from("not even OTLP: tracing decodes, the gateway forwards");

interface Exported {
  request: ExportRequest;
  from: Caller;
}

/** A gateway whose tracing service is `answer`, with OTLP/HTTP and OTLP/gRPC listeners. */
interface OtlpGateway {
  url: string;
  grpcPort: number;
  exported: Exported[];
  /** What the fake tracing service does next (default: accepts everything). */
  answer: (request: ExportRequest) => Promise<ExportResponse>;
  logLines: string[];
  close(): Promise<void>;
}

const accepted = async (): Promise<ExportResponse> => ({ rejectedSpans: 0n, errorMessage: "" });

async function startOtlpGateway(over: Partial<GatewayConfig> = {}): Promise<OtlpGateway> {
  const logLines: string[] = [];
  const config = testConfig({ otlp: { maxBodyBytes: LIMIT, grpcPort: 0 }, ...over });
  const clock = fixedClock(new Date(0)); // frozen: a spent bucket stays spent
  const limiters = createLimiters(config, clock);
  const gw: Pick<OtlpGateway, "exported" | "answer"> = { exported: [], answer: accepted };
  const traceExport: TraceExport = async (request, from) => {
    gw.exported.push({ request, from });
    return gw.answer(request);
  };
  const authenticator: GatewayDeps["authenticator"] = {
    authenticate: async (rawKey) => {
      const p = KEYS[rawKey];
      if (!p) throw new DomainError("authentication-required", "the API key is not valid");
      return p;
    },
  };
  const logger = createLogger({ service: "gateway-test", write: (l) => logLines.push(l) });
  const app = createApp({
    authenticator,
    handlers: unusedOperations(),
    config,
    logger,
    ready: async () => true,
    clock,
    limiters,
    traceExport,
  });
  const server = createGatewayServer(app, { errorsBase: config.errorsBase, logger }).listen(
    0,
    "127.0.0.1",
  );
  await new Promise<void>((resolve) => server.once("listening", resolve));
  // Port 0: the OS picks a free one, with no race against other test files.
  const grpcServer: RunningOtlpGrpc = await startOtlpGrpcServer({
    host: "127.0.0.1",
    port: 0,
    maxMessageBytes: LIMIT,
    deps: { authenticator, limiters, export: traceExport },
    logger,
  });
  return Object.assign(gw, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    grpcPort: grpcServer.port,
    logLines,
    close: async () => {
      await grpcServer.stop(1_000);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  });
}

/** The error a backing service's DomainError becomes on the wire. */
const backendError = (type: ProblemType, message: string): grpc.ServiceError =>
  Object.assign(
    new Error(message),
    toGrpcError(new DomainError(type, message)),
  ) as grpc.ServiceError;

// --- a minimal protobuf reader for google.rpc.Status and RetryInfo (no generated code) ---

function readFields(buf: Buffer): Map<number, (bigint | Buffer)[]> {
  const fields = new Map<number, (bigint | Buffer)[]>();
  let i = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const field = tag >> 3;
    let value: bigint | Buffer;
    if ((tag & 7) === 0) value = varint();
    else {
      const length = Number(varint());
      value = buf.subarray(i, i + length);
      i += length;
    }
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

function decodeStatus(buf: Buffer): { code: number; message: string } {
  const f = readFields(buf);
  return {
    code: Number(f.get(1)?.[0] ?? 0n),
    message: ((f.get(2)?.[0] as Buffer | undefined) ?? Buffer.alloc(0)).toString("utf8"),
  };
}

/** RetryInfo.retry_delay.seconds. */
const retryDelaySeconds = (buf: Buffer): number =>
  Number(readFields(readFields(buf).get(1)![0] as Buffer).get(1)![0]);

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function post(
  gw: OtlpGateway,
  headers: Record<string, string>,
  body: Buffer = BODY,
): Promise<Answer> {
  const res = await fetch(`${gw.url}/v1/traces`, { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const PROTOBUF = { "content-type": "application/x-protobuf" };
const JSON_TYPE = { "content-type": "application/json" };
const alice = { authorization: "Bearer ak-alice", "arize-space-id": SPACE };

let gw: OtlpGateway;
beforeAll(async () => {
  gw = await startOtlpGateway();
});
afterAll(async () => {
  await gw.close();
});
afterEach(() => {
  gw.exported.length = 0;
  gw.answer = accepted;
});

describe("OTLP/HTTP POST /v1/traces", () => {
  const credentials: Record<string, Record<string, string>> = {
    "Bearer in authorization": { authorization: "Bearer ak-alice" },
    "lowercase bearer": { authorization: "bearer ak-alice" },
    "the bare key in authorization (arize-otel)": { authorization: "ak-alice" },
    "api_key (arize-otel)": { api_key: "ak-alice" },
  };
  const spaces: Record<string, Record<string, string>> = {
    "arize-space-id": { "arize-space-id": SPACE },
    space_id: { space_id: SPACE },
  };
  for (const [keyHow, keyHeaders] of Object.entries(credentials))
    for (const [spaceHow, spaceHeaders] of Object.entries(spaces))
      it(`authenticates with ${keyHow} and ${spaceHow}`, async () => {
        const res = await post(gw, { ...PROTOBUF, ...keyHeaders, ...spaceHeaders });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^application\/x-protobuf/);
        expect(ExportTraceServiceResponse.decode(res.body)).toEqual({});
        const [one] = gw.exported;
        expect(one!.request).toEqual({
          payload: BODY,
          encoding: Encoding.ENCODING_PROTOBUF,
          spaceId: SPACE_UUID,
        });
        expect(one!.from.principal.apiKeyId).toBe("key-alice");
        expect(one!.from.clientIp).toBe("127.0.0.1");
      });

  it("sends every header arize-otel sends at once, and logs the request like REST's", async () => {
    const res = await post(gw, {
      ...PROTOBUF,
      authorization: "ak-alice",
      api_key: "ak-alice",
      "arize-space-id": SPACE,
      space_id: SPACE,
      "arize-interface": "otel",
    });
    expect(res.status).toBe(200);
    const line = gw.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .findLast((l) => l.msg === "request");
    expect(line).toMatchObject({ route: "/v1/traces", status: 200, auth: "ok" });
  });

  it("answers JSON in JSON, with charset parameters allowed", async () => {
    const res = await post(gw, { "content-type": "application/json; charset=utf-8", ...alice });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(res.body.toString())).toEqual({});
    expect(gw.exported[0]!.request.encoding).toBe(Encoding.ENCODING_JSON);
  });

  it("answers 401 with a Status without a key, or with a key identity does not know", async () => {
    const attempts: Record<string, string>[] = [
      { "arize-space-id": SPACE },
      { authorization: "Bearer ak-mallory", "arize-space-id": SPACE },
      { authorization: "", api_key: " ", "arize-space-id": SPACE },
    ];
    for (const headers of attempts) {
      const res = await post(gw, { ...JSON_TYPE, ...headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(JSON.parse(res.body.toString())).toMatchObject({
        code: grpc.status.UNAUTHENTICATED,
      });
    }
    expect(gw.exported).toEqual([]);
  });

  it("answers 400 for a missing space header and for an id that is not a space's", async () => {
    const missing = await post(gw, { ...JSON_TYPE, authorization: "Bearer ak-alice" });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body.toString())).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      message: "the arize-space-id header is required",
    });
    for (const bad of [encodeId("Project", SPACE_UUID), "garbage", SPACE_UUID]) {
      const res = await post(gw, {
        ...PROTOBUF,
        authorization: "Bearer ak-alice",
        "arize-space-id": bad,
      });
      expect(res.status).toBe(400);
      expect(decodeStatus(res.body)).toEqual({
        code: grpc.status.INVALID_ARGUMENT,
        message: "arize-space-id is not a space id",
      });
    }
    expect(gw.exported).toEqual([]);
  });

  it("answers 415 for another Content-Type (in JSON) or Content-Encoding", async () => {
    for (const type of ["text/plain", "application/protobuf"]) {
      const res = await post(gw, { "content-type": type, ...alice });
      expect(res.status).toBe(415);
      expect(JSON.parse(res.body.toString())).toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
      });
    }
    // No Content-Type at all.
    const untyped = await fetch(`${gw.url}/v1/traces`, {
      method: "POST",
      headers: alice,
      body: new Blob([BODY]),
    });
    expect(untyped.status).toBe(415);
    // The type is known, so the Status is in it.
    const br = await post(gw, { ...PROTOBUF, ...alice, "content-encoding": "br" });
    expect(br.status).toBe(415);
    expect(decodeStatus(br.body).message).toMatch(/Content-Encoding 'br' is not supported/);
    expect(gw.exported).toEqual([]);
  });

  it("decompresses gzip and deflate bodies before forwarding them", async () => {
    for (const [coding, body] of [
      ["gzip", gzipSync(BODY)],
      ["deflate", deflateSync(BODY)],
    ] as const) {
      const res = await post(gw, { ...PROTOBUF, ...alice, "content-encoding": coding }, body);
      expect(res.status).toBe(200);
    }
    expect(gw.exported.map((e) => e.request.payload)).toEqual([BODY, BODY]);
  });

  it("answers 400 for a body that is not the gzip it claims to be", async () => {
    const res = await post(gw, { ...PROTOBUF, ...alice, "content-encoding": "gzip" }, BODY);
    expect(res.status).toBe(400);
    expect(decodeStatus(res.body).code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it("answers 413 for a body over the limit, on the wire or once decompressed", async () => {
    const big = await post(gw, { ...PROTOBUF, ...alice }, Buffer.alloc(LIMIT + 1, 1));
    expect(big.status).toBe(413);
    // 10 MiB of zeros gzip to ~10 KiB: small on the wire, a bomb once inflated.
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(LIMIT);
    const res = await post(gw, { ...PROTOBUF, ...alice, "content-encoding": "gzip" }, bomb);
    expect(res.status).toBe(413);
    expect(decodeStatus(res.body).message).toMatch(/decompressed request body exceeds 65536/);
    // The connection still serves: the gateway answered rather than hang up.
    expect((await post(gw, { ...PROTOBUF, ...alice })).status).toBe(200);
    expect(gw.exported).toHaveLength(1);
  });

  it("maps tracing's INVALID_ARGUMENT to 400 with a Status in the request's encoding", async () => {
    gw.answer = async () => {
      throw backendError("invalid-request", "the body is not an ExportTraceServiceRequest");
    };
    const proto = await post(gw, { ...PROTOBUF, ...alice });
    expect(proto.status).toBe(400);
    expect(proto.headers.get("content-type")).toMatch(/^application\/x-protobuf/);
    expect(decodeStatus(proto.body)).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      message: "the body is not an ExportTraceServiceRequest",
    });
    const json = await post(gw, { ...JSON_TYPE, ...alice });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.body.toString())).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      message: "the body is not an ExportTraceServiceRequest",
    });
  });

  it("maps tracing's other failures to OTLP's statuses, retryable ones with Retry-After", async () => {
    const cases: [ProblemType, number, string | null][] = [
      ["authentication-required", 401, null],
      ["access-forbidden", 403, null],
      ["resource-not-found", 404, null],
      ["rate-limit-exceeded", 429, "5"],
      ["service-unavailable", 503, "5"],
      ["internal-error", 500, null],
    ];
    for (const [type, status, retryAfter] of cases) {
      gw.answer = async () => {
        throw backendError(type, `${type} from tracing`);
      };
      const res = await post(gw, { ...JSON_TYPE, ...alice });
      expect([type, res.status, res.headers.get("retry-after")]).toEqual([
        type,
        status,
        retryAfter,
      ]);
    }
    // Neither a transport failure nor an unexpected error leaks its details.
    gw.answer = async () => {
      throw new Error("secret stack");
    };
    const res = await post(gw, { ...JSON_TYPE, ...alice });
    expect(JSON.parse(res.body.toString())).toEqual({
      code: grpc.status.INTERNAL,
      message: "internal error",
    });
  });

  it("answers a tracing service that lost its database with 503 + Retry-After and UNAVAILABLE with RetryInfo", async () => {
    // What the service sends for a connection its Postgres dropped (a restart): never INTERNAL.
    gw.answer = async () => {
      throw Object.assign(
        new Error("14 UNAVAILABLE"),
        toGrpcError(Object.assign(new Error("Connection terminated unexpectedly"))),
      );
    };
    const res = await post(gw, { ...PROTOBUF, ...alice });
    expect([res.status, res.headers.get("retry-after")]).toEqual([503, "5"]);
    expect(decodeStatus(res.body).code).toBe(grpc.status.UNAVAILABLE);
    const err = await exportOverGrpc(gw, metadataOf(alice)).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).toBe(grpc.status.UNAVAILABLE);
    expect(retryDelaySeconds(err!.metadata.get("google.rpc.retryinfo-bin")[0] as Buffer)).toBe(5);
  });

  it("passes a partial success through, in both encodings", async () => {
    gw.answer = async () => ({ rejectedSpans: 3n, errorMessage: "3 spans had no name" });
    const proto = await post(gw, { ...PROTOBUF, ...alice });
    expect(proto.status).toBe(200);
    expect(ExportTraceServiceResponse.decode(proto.body)).toEqual({
      partialSuccess: { rejectedSpans: 3n, errorMessage: "3 spans had no name" },
    });
    const json = await post(gw, { ...JSON_TYPE, ...alice });
    expect(JSON.parse(json.body.toString())).toEqual({
      partialSuccess: { rejectedSpans: "3", errorMessage: "3 spans had no name" },
    });
  });

  it("answers 405 to other methods", async () => {
    const res = await fetch(`${gw.url}/v1/traces`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("OTLP rate limits", () => {
  let limited: OtlpGateway;
  beforeAll(async () => {
    limited = await startOtlpGateway({
      rateLimitPerSecond: 1,
      rateLimitBurst: 1,
      unauthRateLimitPerSecond: 1,
      unauthRateLimitBurst: 1,
    });
  });
  afterAll(async () => {
    await limited.close();
  });

  it("answers 429 with Retry-After once the key's bucket is empty, on HTTP and gRPC alike", async () => {
    expect((await post(limited, { ...PROTOBUF, ...alice })).status).toBe(200);
    const res = await post(limited, { ...PROTOBUF, ...alice });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(decodeStatus(res.body).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // The same budget on gRPC: RESOURCE_EXHAUSTED with RetryInfo, which makes clients retry.
    const err = await exportOverGrpc(limited, metadataOf(alice)).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(retryDelaySeconds(err!.metadata.get("google.rpc.retryinfo-bin")[0] as Buffer)).toBe(1);
    const details = decodeStatus(err!.metadata.get("grpc-status-details-bin")[0] as Buffer);
    expect(details.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it("answers 429 to an address whose failed authentications are spent", async () => {
    const bad = { ...PROTOBUF, authorization: "Bearer ak-mallory", "arize-space-id": SPACE };
    expect((await post(limited, bad)).status).toBe(401);
    const res = await post(limited, bad);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
  });
});

const metadataOf = (headers: Record<string, string>): grpc.Metadata => {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k, v);
  return md;
};

function exportOverGrpc(
  target: { grpcPort: number },
  md: grpc.Metadata,
  payload: Buffer = BODY,
  options: grpc.ClientOptions = {},
): Promise<ExportTraceServiceResponse> {
  const client = new grpc.Client(
    `127.0.0.1:${target.grpcPort}`,
    grpc.credentials.createInsecure(),
    options,
  );
  return new Promise<ExportTraceServiceResponse>((resolve, reject) =>
    client.makeUnaryRequest(
      "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
      (b: Buffer) => b,
      (b: Buffer) => ExportTraceServiceResponse.decode(b),
      payload,
      md,
      (err, res) => (err ? reject(err) : resolve(res!)),
    ),
  ).finally(() => client.close());
}

const failureOf = (p: Promise<unknown>): Promise<grpc.ServiceError> =>
  p.then(
    () => {
      throw new Error("the call succeeded");
    },
    (e: grpc.ServiceError) => e,
  );

describe("OTLP/gRPC TraceService/Export", () => {
  it("forwards the request bytes unchanged and answers ExportTraceServiceResponse", async () => {
    gw.answer = async () => ({ rejectedSpans: 2n, errorMessage: "two" });
    const res = await exportOverGrpc(
      gw,
      metadataOf({ authorization: "ak-alice", space_id: SPACE }),
    );
    expect(res).toEqual({ partialSuccess: { rejectedSpans: 2n, errorMessage: "two" } });
    expect(gw.exported[0]!.request).toEqual({
      payload: BODY,
      encoding: Encoding.ENCODING_PROTOBUF,
      spaceId: SPACE_UUID,
    });
    expect(gw.exported[0]!.from.principal.apiKeyId).toBe("key-alice");
  });

  it("takes gzip-compressed messages (grpc-encoding)", async () => {
    const res = await exportOverGrpc(gw, metadataOf(alice), BODY, {
      "grpc.default_compression_algorithm": grpc.compressionAlgorithms.gzip,
    });
    expect(res).toEqual({});
    expect(gw.exported[0]!.request.payload).toEqual(BODY);
  });

  it("answers UNAUTHENTICATED without a key, INVALID_ARGUMENT without a space", async () => {
    expect(
      (await failureOf(exportOverGrpc(gw, metadataOf({ "arize-space-id": SPACE })))).code,
    ).toBe(grpc.status.UNAUTHENTICATED);
    const noSpace = await failureOf(exportOverGrpc(gw, metadataOf({ api_key: "ak-alice" })));
    expect([noSpace.code, noSpace.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      "the arize-space-id header is required",
    ]);
    expect(gw.exported).toEqual([]);
  });

  it("passes tracing's verdicts on as OTLP's gRPC statuses", async () => {
    const cases: [ProblemType, grpc.status][] = [
      ["invalid-request", grpc.status.INVALID_ARGUMENT],
      ["access-forbidden", grpc.status.PERMISSION_DENIED],
      ["resource-not-found", grpc.status.NOT_FOUND],
      ["service-unavailable", grpc.status.UNAVAILABLE],
    ];
    for (const [type, code] of cases) {
      gw.answer = async () => {
        throw backendError(type, `${type} from tracing`);
      };
      const err = await failureOf(exportOverGrpc(gw, metadataOf(alice)));
      expect([err.code, err.details]).toEqual([code, `${type} from tracing`]);
    }
  });

  it("refuses a message over the limit with RESOURCE_EXHAUSTED", async () => {
    const err = await failureOf(exportOverGrpc(gw, metadataOf(alice), Buffer.alloc(LIMIT + 1)));
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(gw.exported).toEqual([]);
  });
});

describe("OpenTelemetry's own exporters", () => {
  let spans: ReadableSpan[];
  beforeAll(() => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    provider.getTracer("otlp-test").startSpan("hello argus").end();
    spans = memory.getFinishedSpans();
  });

  const exportWith = (exporter: {
    export(s: ReadableSpan[], cb: (r: ExportResult) => void): void;
    shutdown(): Promise<void>;
  }): Promise<ExportResult> =>
    new Promise<ExportResult>((resolve) => exporter.export(spans, resolve)).finally(() =>
      exporter.shutdown(),
    );

  /** The span names of an export, read the way its encoding says. */
  const spanNames = (request: ExportRequest): string[] => {
    const decoded: { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] } =
      request.encoding === Encoding.ENCODING_JSON
        ? (JSON.parse(request.payload.toString()) as typeof decoded)
        : ExportTraceServiceRequest.decode(request.payload);
    return decoded.resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)),
    );
  };

  it("OTLP/HTTP protobuf, gzip-compressed, with OTEL_EXPORTER_OTLP_HEADERS-style headers", async () => {
    const result = await exportWith(
      new ProtoExporter({
        url: `${gw.url}/v1/traces`,
        headers: { authorization: "Bearer ak-alice", "arize-space-id": SPACE },
        compression: "gzip" as never,
      }),
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(gw.exported[0]!.request.encoding).toBe(Encoding.ENCODING_PROTOBUF);
    expect(spanNames(gw.exported[0]!.request)).toEqual(["hello argus"]);
  });

  it("OTLP/HTTP JSON", async () => {
    const result = await exportWith(
      new JsonExporter({
        url: `${gw.url}/v1/traces`,
        headers: { authorization: "ak-alice", "arize-space-id": SPACE, "arize-interface": "otel" },
      }),
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(gw.exported[0]!.request.encoding).toBe(Encoding.ENCODING_JSON);
    expect(spanNames(gw.exported[0]!.request)).toEqual(["hello argus"]);
  });

  it("OTLP/gRPC", async () => {
    const result = await exportWith(
      new GrpcExporter({
        url: `http://127.0.0.1:${gw.grpcPort}`,
        metadata: metadataOf({ authorization: "ak-alice", "arize-space-id": SPACE }),
      }),
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(spanNames(gw.exported[0]!.request)).toEqual(["hello argus"]);
  });

  it("reports a refused key as a failed export", async () => {
    const result = await exportWith(
      new ProtoExporter({
        url: `${gw.url}/v1/traces`,
        headers: { authorization: "Bearer ak-mallory", "arize-space-id": SPACE },
      }),
    );
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(gw.exported).toEqual([]);
  });
});

describe("the gateway process", () => {
  const env = {
    GATEWAY_PRIVATE_KEY: generateCallKeyPair().privateKey,
    ARGUS_CURSOR_SECRET: "c".repeat(32),
    ARGUS_HTTP_PORT: "0",
    // Nothing listens there: identity's refusal is the answer under test.
    IDENTITY_GRPC_URL: "127.0.0.1:1",
    ARGUS_GRPC_DEADLINE_MS: "300",
  };
  const quiet = createLogger({ service: "gateway-test", write: () => undefined });

  it("listens for OTLP/gRPC on ARGUS_OTLP_GRPC_PORT and says where; 0 disables it", async () => {
    const port = await freePort();
    const running = await startGateway(
      loadGatewayConfig({ ...env, ARGUS_OTLP_GRPC_PORT: String(port) }),
      quiet,
    );
    try {
      expect(running.otlpGrpcPort).toBe(port);
      // Wired end to end: identity being unreachable is OTLP's retryable UNAVAILABLE / 503.
      const err = await failureOf(exportOverGrpc({ grpcPort: port }, metadataOf(alice)));
      expect(err.code).toBe(grpc.status.UNAVAILABLE);
      const res = await fetch(`http://127.0.0.1:${running.port}/v1/traces`, {
        method: "POST",
        headers: { ...PROTOBUF, ...alice },
        body: BODY,
      });
      expect([res.status, res.headers.get("retry-after")]).toEqual([503, "5"]);
    } finally {
      await running.stop();
    }
    const without = await startGateway(
      loadGatewayConfig({ ...env, ARGUS_OTLP_GRPC_PORT: "0" }),
      quiet,
    );
    expect(without.otlpGrpcPort).toBeUndefined();
    await without.stop();
  });
});
