// Writes deploy/helm/argus/files/registry.json from the service registry
// (packages/platform/src/registry.ts), so the chart checks its values against the services
// this version has. Part of `pnpm gen`; CI fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import {
  GATEWAY,
  NATS_MANAGER,
  SERVICE_REGISTRY,
  callKeysOf,
  callSigners,
  callersOf,
  envPrefix,
  keyEnv,
  natsIdentities,
  serviceEnv,
} from "../packages/platform/src/index.ts";

/** `task-runner` → `taskRunner`: the key of a service under `services:` in values.yaml. */
const valuesKey = (name: string): string =>
  name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

// NATS permissions with placeholders the chart fills from its configuration, so the rule that
// derives them (packages/platform/src/natsIdentities.ts) stays the only one.
const ROOT = "{{ROOT}}";
const STREAM = "{{STREAM}}";
const nats = Object.fromEntries(
  natsIdentities({ root: ROOT, stream: STREAM }).map((i) => [i.user, i.permissions]),
);

// The Ed25519 call keys a process's pod receives: its own private key when it signs, and the
// public keys of those whose signatures it checks (packages/platform/src/registry.ts callKeysOf).
const callKeys = (name: string) => {
  const { signs, trusts } = callKeysOf(name);
  return {
    privateKeyVar: signs ? keyEnv(name).privateKey : null,
    publicKeyVars: trusts.map((n) => keyEnv(n).publicKey),
  };
};

const registry = {
  gateway: {
    name: GATEWAY.name,
    valuesKey: valuesKey(GATEWAY.name),
    callKeys: callKeys(GATEWAY.name),
  },
  // Every process that signs: the key pairs a release holds.
  callSigners: callSigners().map((name) => ({ name, ...keyEnv(name) })),
  services: SERVICE_REGISTRY.map((d) => ({
    name: d.name,
    valuesKey: valuesKey(d.name),
    schema: d.schema,
    envPrefix: envPrefix(d.name),
    grpcUrlVar: serviceEnv(d.name).grpcUrl,
    calls: d.calls,
    optionalCalls: d.optionalCalls ?? [],
    callers: callersOf(d.name),
    callKeys: callKeys(d.name),
    consumes: d.consumes ?? [],
  })),
  nats: { placeholders: { root: ROOT, stream: STREAM }, manager: NATS_MANAGER, permissions: nats },
};
const file = new URL("../deploy/helm/argus/files/registry.json", import.meta.url);
writeFileSync(file, `${JSON.stringify(registry, null, 2)}\n`);
