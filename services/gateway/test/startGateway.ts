import { expect } from "vitest";
import {
  DomainError,
  NOBODY,
  createLogger,
  generateCallKeyPair,
  parsePrivateKey,
  type Clock,
  type Principal,
} from "@argus/platform";
import { listenLocal } from "@argus/testkit";
import { createApp } from "../src/app.ts";
import { createGatewayServer } from "../src/http/httpLimits.ts";
import { loadDocument } from "../src/openapi/document.ts";
import { compileOperations, type RawInput } from "../src/openapi/operations.ts";
import { createResponseChecker } from "../src/openapi/responses.ts";
import type { GatewayConfig } from "../src/config.ts";
import type { GatewayDeps } from "../src/app.ts";
import type { Handlers } from "../src/http/handler.ts";

/** A gateway on a free loopback port with the caller's handlers; no backing services. */
export interface TestGateway {
  url: string;
  logLines: string[];
  /** Every key the fake identity was asked about, in order. */
  authenticated: string[];
  close(): Promise<void>;
}

/** The n-th id a route test's fake service answers with (a uuid v7 as the services make). */
export const uuid = (n: number) => `0192f4a0-0000-7000-8000-${String(n).padStart(12, "0")}`;
/** A resource's creation and last update, as the fake service answers them. */
export const AT = "2026-01-02T03:04:05.000Z";
export const LATER = "2026-02-02T03:04:05.000Z";

export const KEYS: Record<string, Principal> = {
  "ak-alice": { ...NOBODY, accountId: "acc-1", userId: "alice", apiKeyId: "key-alice" },
  "ak-bob": { ...NOBODY, accountId: "acc-1", userId: "bob", apiKeyId: "key-bob" },
};

export const testConfig = (over: Partial<GatewayConfig> = {}): GatewayConfig => ({
  httpPort: 0,
  httpDrainMs: 0,
  grpcUrls: { identity: "127.0.0.1:1", catalog: "127.0.0.1:1" },
  privateKey: parsePrivateKey(generateCallKeyPair().privateKey),
  cursorSecret: "c".repeat(32),
  rateLimitPerSecond: 10_000,
  rateLimitBurst: 10_000,
  unauthRateLimitPerSecond: 10_000,
  unauthRateLimitBurst: 10_000,
  maxBodyBytes: 4096,
  otlp: { maxBodyBytes: 65_536, grpcPort: 0 },
  flight: { port: 0, maxMessageBytes: 1 << 20 },
  grpcDeadlineMs: 5_000,
  idempotencyLeaseMs: 15_000,
  httpHost: "127.0.0.1",
  errorsBase: "https://argus.dev/errors",
  logLevel: "info",
  principalCache: { nats: undefined, subjectRoot: "argus", maxEntries: 0, maxTtlMs: 60_000 },
  ...over,
});

export async function startGateway(
  handlers: Partial<Handlers>,
  opts: {
    config?: Partial<GatewayConfig>;
    clock?: Clock;
    ready?: () => Promise<boolean>;
    idempotencyKeys?: GatewayDeps["idempotencyKeys"];
  } = {},
): Promise<TestGateway> {
  const logLines: string[] = [];
  const authenticated: string[] = [];
  const deps: GatewayDeps = {
    authenticator: {
      authenticate: async (rawKey) => {
        authenticated.push(rawKey);
        const p = KEYS[rawKey];
        if (!p) throw new DomainError("authentication-required", "the API key is not valid");
        return p;
      },
    },
    handlers: { ...unusedOperations(), ...handlers },
    config: testConfig(opts.config),
    logger: createLogger({ service: "gateway-test", write: (l) => logLines.push(l) }),
    ready: opts.ready ?? (async () => true),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.idempotencyKeys ? { idempotencyKeys: opts.idempotencyKeys } : {}),
  };
  const server = createGatewayServer(createApp(deps), {
    errorsBase: deps.config.errorsBase,
    logger: deps.logger,
  });
  const port = await listenLocal(server);
  return {
    url: `http://127.0.0.1:${port}`,
    logLines,
    authenticated,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** Every operation of the document answers; the ones a test does not exercise fail loudly. */
export function unusedOperations(): Handlers {
  const out: Record<string, () => Promise<never>> = {};
  for (const op of compileOperations(loadDocument().document)) {
    out[op.operationId] = async () => {
      throw new Error(`operation ${op.operationId} is not part of this test`);
    };
  }
  // One for every operation of the document, which is what Handlers lists.
  return out as unknown as Handlers;
}

export interface JsonAnswer {
  status: number;
  contentType: string;
  text: string;
  json: Record<string, unknown>;
}

/** One request through `gw` as alice; the answer's text and, when there is one, its JSON. */
export async function callAsAlice(
  gw: TestGateway,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonAnswer> {
  const res = await fetch(gw.url + path, {
    method,
    headers: {
      authorization: "Bearer ak-alice",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    // A string is sent as it is, so a test can send text that is not valid JSON.
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/**
 * What the edge's validation of an operation says about an input: ["ok"], or the problem type and
 * detail it refuses the input with. The operation's path ids are filled in from `pathIds`
 * (name → public id), so that a test names only the query and body it is about.
 */
export function validation(
  pathIds: Record<string, string> = {},
): (id: string, input: Partial<RawInput>) => string[] {
  const ops = compileOperations(loadDocument().document);
  return (id, input) => {
    const op = ops.find((o) => o.operationId === id)!;
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(pathIds))
      if (op.path.includes(`{${name}}`)) params[name] = value;
    try {
      op.validate({ params, query: {}, body: undefined, ...input });
    } catch (e) {
      if (e instanceof DomainError) return [e.type, e.message];
      throw e;
    }
    return ["ok"];
  };
}

/**
 * The document's operations for a route group's tests: `call` goes through the gateway as alice
 * and fails the test when an answer does not fit the document; `edge` says whether the edge's
 * validation takes an input ("ok") or the problem type it refuses it with, the operation's path
 * ids filled in from `pathIds` (name → public id).
 */
export function documentedRoutes(gateway: () => TestGateway, pathIds: Record<string, string>) {
  const { document } = loadDocument();
  const ops = compileOperations(document);
  const op = (id: string) => ops.find((o) => o.operationId === id)!;
  const checkResponse = createResponseChecker(document);
  async function call(method: string, path: string, body?: unknown): Promise<JsonAnswer> {
    const res = await callAsAlice(gateway(), method, path, body);
    if (res.text)
      expect(checkResponse(method, path, res.status, res.contentType, res.json)).toEqual([]);
    return res;
  }
  const validate = validation(pathIds);
  const edge = (id: string, input: Partial<RawInput>): string => validate(id, input)[0]!;
  return { ops, op, call, edge };
}
