import { fileURLToPath } from "node:url";
import { freePort, spawnProcess } from "@argus/testkit";
import type { Benchmark } from "./benchmark.ts";
import { expectSameBody, withBenchStack } from "./stack.ts";

const gatewayDir = fileURLToPath(new URL("../services/gateway/", import.meta.url));

/**
 * The gateway with authentication short-circuited: the real app, routes, validation, rate
 * limit and backends, but an authenticator that returns one fixed principal (resolved once,
 * through identity, from the admin key) instead of calling Authenticate per request. It runs
 * as its own process, like the real gateway, so the load generator does not share its thread.
 */
const NO_AUTH_GATEWAY = `
import { GATEWAY, createLogger, principalSigner, serviceCredential } from "@argus/platform";
import { createApp } from "./src/app.ts";
import { createBackend } from "./src/backend.ts";
import { loadGatewayConfig } from "./src/config.ts";
import { identityAuthentication } from "./src/identityAuthenticator.ts";
import { loadDocument } from "./src/openapi/document.ts";
import { compileOperations } from "./src/openapi/operations.ts";
import { spaceHandlers } from "./src/routes/spaces.ts";

const config = loadGatewayConfig();
const logger = createLogger({ service: "gateway-no-auth", level: config.logLevel });
const signing = { callers: principalSigner(config.privateKey),
  self: serviceCredential(GATEWAY.name, config.privateKey) };
const identity = createBackend(config.grpcUrls.identity, signing, config.grpcDeadlineMs);
const { principal } = await identityAuthentication(identity, signing.self)(
  process.env.BENCH_API_KEY, { requestId: "bench", clientIp: "127.0.0.1" });
const loaded = loadDocument();
// Only the benchmarked route is served for real; createApp wants a handler per operation.
const handlers = Object.fromEntries(compileOperations(loaded.document).map((o) => [o.operationId,
  async () => { throw new Error("not part of the benchmark"); }]));
Object.assign(handlers, spaceHandlers(identity));
const app = createApp({ authenticator: { authenticate: async () => principal }, handlers, config,
  logger, ready: async () => true }, loaded);
app.listen(config.httpPort);
`;

/**
 * What authenticating every request costs (ARCHITECTURE §8: the gateway calls identity's
 * Authenticate on every request, so a revoke is seen at once): GET /v2/spaces/{id} through
 * the real gateway versus the same gateway code with a fixed principal, both against the same
 * identity process and database.
 */
export async function authOverheadBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, onStop, stop }) => {
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const res = await fetch(`${stack.baseUrl}/v2/spaces`, { headers });
    const spaceId = ((await res.json()) as { spaces?: { id: string }[] }).spaces?.[0]?.id;
    if (!spaceId) throw new Error(`GET /v2/spaces: ${res.status} without a space`);

    const port = await freePort();
    const noAuth = await spawnProcess({
      name: "gateway-no-auth",
      command: process.execPath,
      args: ["--input-type=module", "-e", NO_AUTH_GATEWAY],
      cwd: gatewayDir,
      env: {
        ...stack.env,
        ...stack.processEnv.gateway,
        ARGUS_HTTP_PORT: String(port),
        ARGUS_OTLP_GRPC_PORT: "0",
        BENCH_API_KEY: stack.apiKey,
      },
      readyWhen: async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
    });
    onStop(() => noAuth.stop());

    const path = `/v2/spaces/${encodeURIComponent(spaceId)}`;
    const identity = stack.processes.identity!.pid;
    const subject = {
      name: "auth",
      url: stack.baseUrl + path,
      headers,
      pids: { gateway: stack.processes.gateway!.pid, identity },
    };
    const baseline = {
      name: "no-auth",
      url: `http://127.0.0.1:${port}${path}`,
      headers,
      pids: { gateway: noAuth.pid, identity },
    };
    await expectSameBody(subject, baseline);
    return { name: "GET /v2/spaces/{id}: Authenticate per request", subject, baseline, stop };
  });
}
