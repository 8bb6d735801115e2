// A service: its definition, and how it starts (migrations, consumers, gRPC) and stops.
export type { RunningService, ServiceDeps, StartOptions } from "./defineService.ts";
export { defineService, loadServiceConfig, serviceMain, startService } from "./defineService.ts";
export type { DurableConsumerOptions } from "./serviceRuntime.ts";

// Migrations: the store's tables, then a service's own SQL files, each applied once.
export { migrate } from "./migrations/migrate.ts";
export { loadMigrations, migrationsDirOf } from "./migrations/loadMigrations.ts";

// Provisioning, the management step: database roles and schemas, the stream and consumers.
export { databaseRoleNames, provisionDatabase } from "./provisioning/provisionDatabase.ts";
export { provisionMessaging } from "./provisioning/provisionMessaging.ts";

// Background work: claim what is due, work it, sleep until announced.
export { startWorkLoop } from "./workLoop.ts";
