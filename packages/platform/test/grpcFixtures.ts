import type * as grpc from "@grpc/grpc-js";
import { afterEach } from "vitest";
import {
  generateCallKeyPair,
  parsePrivateKey,
  parsePublicKey,
  principalSigner,
  type CallCredential,
} from "../src/callCredentials.ts";
import { createChannel } from "../src/grpcClient.ts";
import {
  startGrpcServer,
  type GrpcServerOptions,
  type RunningGrpcServer,
  type ServiceBinding,
} from "../src/grpcServer.ts";
import { createLogger } from "../src/logger.ts";
import { NOBODY } from "../src/principal.ts";

/** The gateway's key pair of these tests. */
const GATEWAY_KEYS = generateCallKeyPair();
const gatewaySigner = principalSigner(parsePrivateKey(GATEWAY_KEYS.privateKey));

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  logged.length = 0;
});

/** Runs `stop` after the current test, before what was set up earlier. */
export function afterThisTest(stop: () => unknown): void {
  cleanups.push(stop);
}

/** What the servers of the current test logged, a JSON line each. */
export const logged: string[] = [];

/** Where a server listens, and how long its clients' connections last; 127.0.0.1:0 by default. */
type ServerAt = Pick<GrpcServerOptions, "host" | "port" | "maxConnectionAgeMs">;

/** A real server with just these methods, that trusts `asGateway`; stopped after the test. */
export async function startServer(
  at: Partial<ServerAt>,
  ...services: ServiceBinding[]
): Promise<RunningGrpcServer> {
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    ...at,
    services,
    trust: { keys: { gateway: parsePublicKey(GATEWAY_KEYS.publicKey) } },
    logger: createLogger({ service: "test", write: (line) => logged.push(line) }),
  });
  afterThisTest(() => server.shutdown(0));
  return server;
}

/** A real server on 127.0.0.1:0 with just these methods, and a channel to it. */
export async function serve(...services: ServiceBinding[]): Promise<grpc.Client> {
  const server = await startServer({}, ...services);
  const channel = createChannel(`127.0.0.1:${server.port}`);
  afterThisTest(() => channel.close());
  return channel;
}

// Signed when the call is made, so it stays fresh however long the file runs.
const nobody: CallCredential = {
  attach: (md, path) => gatewaySigner.sign(NOBODY).attach(md, path),
};

/** Call options of a gateway-like caller (the first hop), for a principal with no rights. */
export const asGateway = { credential: nobody, requestId: "r" };

/** A space as identity's GetSpace answers it, for servers that stand in for identity. */
export const space = {
  id: "s1",
  organizationId: "o1",
  name: "S",
  description: "",
  isPrivate: false,
  createdAt: "",
  settingsJson: "{}",
};
