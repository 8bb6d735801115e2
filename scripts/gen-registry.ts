// Writes deploy/helm/argus/files/registry.json from the service registry
// (packages/platform/src/registry.ts), so the chart checks its values against the services
// this version has. Part of `pnpm gen`; CI fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import { GATEWAY, SERVICE_REGISTRY, serviceEnv } from "../packages/platform/src/index.ts";

/** `task-runner` → `taskRunner`: the key of a service under `services:` in values.yaml. */
const valuesKey = (name: string): string =>
  name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const registry = {
  gateway: { name: GATEWAY.name, valuesKey: valuesKey(GATEWAY.name) },
  services: SERVICE_REGISTRY.map((d) => ({
    name: d.name,
    valuesKey: valuesKey(d.name),
    schema: d.schema,
    grpcUrlVar: serviceEnv(d.name).grpcUrl,
    calls: d.calls,
    optionalCalls: d.optionalCalls ?? [],
  })),
};
const file = new URL("../deploy/helm/argus/files/registry.json", import.meta.url);
writeFileSync(file, `${JSON.stringify(registry, null, 2)}\n`);
