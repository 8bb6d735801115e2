import type * as grpc from "@grpc/grpc-js";
import { afterEach } from "vitest";
import { createChannel } from "../src/grpcClient.ts";
import { startGrpcServer, type ServiceBinding } from "../src/grpcServer.ts";
import { createLogger } from "../src/logger.ts";
import { GATEWAY_PRINCIPAL } from "../src/principal.ts";

export const SECRET = "s".repeat(32);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real server on 127.0.0.1:0 with just these methods, and a channel to it. */
export async function serve(...services: ServiceBinding[]): Promise<grpc.Client> {
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services,
    principalSecret: SECRET,
    logger: createLogger({ service: "test", write: () => {} }),
  });
  const channel = createChannel(`127.0.0.1:${server.port}`);
  cleanups.push(() => server.shutdown(0));
  cleanups.push(() => channel.close());
  return channel;
}

/** Call options of a gateway-like caller (the first hop). */
export const asGateway = { principal: GATEWAY_PRINCIPAL, principalSecret: SECRET, requestId: "r" };
