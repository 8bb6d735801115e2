import type { Server } from "node:http";
import type { Logger } from "@argus/platform";
import { createApp } from "./app.ts";
import { createBackend } from "./backend.ts";
import type { GatewayConfig } from "./config.ts";
import { identityAuthenticator } from "./identityAuthenticator.ts";
import { organizationHandlers } from "./routes/organizations.ts";
import { spaceHandlers } from "./routes/spaces.ts";

export interface RunningGateway {
  port: number;
  stop(): Promise<void>;
}

/** Wires the gateway process: one channel per backing service, the app, the listener. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const identity = createBackend(config.identityGrpcUrl, config.principalSecret);
  const app = createApp({
    authenticator: identityAuthenticator(identity, config.principalSecret),
    handlers: { ...organizationHandlers(identity), ...spaceHandlers(identity) },
    config,
    logger,
    ready: () => channelReady(identity.channel),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(config.httpPort, () => resolve(s));
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : config.httpPort,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      identity.close();
    },
  };
}

function channelReady(channel: {
  waitForReady(deadline: Date, cb: (err?: Error) => void): void;
}): Promise<boolean> {
  return new Promise((resolve) =>
    channel.waitForReady(new Date(Date.now() + 1_000), (err) => resolve(!err)),
  );
}
