export type { Logger } from "./logger.ts";
export type { Checkpoint, EventMetadata, NewEvent, StoredEvent } from "./types.ts";
export { ConcurrencyError, EventTooLargeError, MigrationError } from "./errors.ts";
export { UndecodableEventError, decodeEvent } from "./eventCodec.ts";

export type { Migration, MigrateOptions } from "./migrate.ts";
export { migrate } from "./migrate.ts";

export type { ExpectedVersion } from "./appendToStream.ts";
// For consumers that append in the transaction of their processed-event marker.
export { appendToStream } from "./appendToStream.ts";
export type { EventStore, EventStoreOptions, EventStoreTransaction } from "./eventStore.ts";
export type { StreamRead } from "./snapshots.ts";
export { createEventStore } from "./eventStore.ts";
export type { Queryable } from "./tracedQuery.ts";
export { tracedQuery } from "./tracedQuery.ts";

export type { SubjectOf } from "./subject.ts";
export { defaultSubject } from "./subject.ts";
export type { Relay, RelayOptions } from "./relay.ts";
export { createRelay } from "./relay.ts";

export type { EnsureStreamOptions } from "./ensureStream.ts";
export { ensureStream } from "./ensureStream.ts";
export type { EnsureConsumerOptions } from "./ensureConsumer.ts";
export { ensureConsumer } from "./ensureConsumer.ts";

export type { EventHandler } from "./processOnce.ts";
export type { ConsumerOptions, ConsumerRunner } from "./consumer.ts";
export { runConsumer } from "./consumer.ts";
export type { ReplayOptions, ResetConsumerOptions } from "./replay.ts";
export { replay, resetConsumer } from "./replay.ts";
export type { CommitOptions } from "./commit.ts";
export { commit } from "./commit.ts";
export type {
  DurableConsumerOptions,
  ServiceRuntime,
  ServiceRuntimeOptions,
} from "./serviceRuntime.ts";
export { startServiceRuntime } from "./serviceRuntime.ts";
export type { Decider, DomainEvent } from "./decider.ts";
export { fold, snapshotTag } from "./decider.ts";
export type {
  CommandHandler,
  CommandInput,
  CommandOptions,
  CommandScope,
  Decision,
  Project,
} from "./handleCommand.ts";
export { commandScope, commandScopeIn, createCommandHandler } from "./handleCommand.ts";
export type {
  CommonConfig,
  RunningService,
  ServiceDefinition,
  StartOptions,
  ServiceDeps,
} from "./defineService.ts";
export {
  defineService,
  loadServiceConfig,
  serviceConfigSpec,
  serviceMain,
  startService,
} from "./defineService.ts";
export { loadMigrations, migrationsDirOf } from "./loadMigrations.ts";
export type { Projections } from "./projector.ts";
export { projector } from "./projector.ts";
export { MAX_DELIVER, provisionMessaging } from "./provisionMessaging.ts";
export type { DatabaseRoles } from "./provisionDatabase.ts";
export {
  databaseRoleNames,
  dropDatabaseRoles,
  provisionDatabase,
  urlAs,
} from "./provisionDatabase.ts";
export { EVENT_PAYLOAD_BYTES, chunkBySize } from "./eventChunks.ts";
export type { WorkLoopOptions } from "./workLoop.ts";
export { startWorkLoop } from "./workLoop.ts";
