import { describe, expect, it } from "vitest";
import { SERVICE_REGISTRY, callKeyEnv, generateCallKeys } from "@argus/platform";
import { defineService, loadServiceConfig } from "../src/defineService.ts";

const keys = generateCallKeys();

describe.each(SERVICE_REGISTRY.map((d) => d.name))("%s's configuration", (name) => {
  const service = defineService(name, {
    config: {},
    migrations: [],
    project: async () => undefined,
    grpc: () => [],
  });
  const env = (natsUrl: string) => ({
    DATABASE_URL: "postgres://u:p@db:5432/argus",
    NATS_URL: natsUrl,
    ...callKeyEnv(name, keys),
  });

  it("takes every server of a NATS cluster from NATS_URL", () => {
    const { config } = loadServiceConfig(
      service,
      env("nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222"),
    );
    expect(config.natsServers).toEqual([
      "nats://nats-0.nats:4222",
      "nats://nats-1.nats:4222",
      "nats://nats-2.nats:4222",
    ]);
  });

  it("takes a single server as one", () => {
    expect(loadServiceConfig(service, env("nats://nats:4222")).config.natsServers).toEqual([
      "nats://nats:4222",
    ]);
  });
});
