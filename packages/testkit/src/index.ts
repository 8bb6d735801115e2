export type { Infra } from "./infra.ts";
export { startInfra } from "./infra.ts";
export { testInfra } from "./testInfra.ts";
export type { TestDatabase } from "./testDatabase.ts";
export { createTestDatabase } from "./testDatabase.ts";
export { uniqueName } from "./uniqueName.ts";
export { freePort } from "./freePort.ts";
export type { SpawnedProcess, SpawnProcessOptions } from "./spawnProcess.ts";
export { spawnProcess } from "./spawnProcess.ts";
