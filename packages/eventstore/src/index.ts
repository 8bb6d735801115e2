// Shared shapes: events as the store keeps them, and the logger every part writes to.
export type { ConsumedEvent, DataText, EventMetadata, StoredEvent } from "./types.ts";
export type { Logger } from "./logger.ts";

// Schema: the store's own tables (applied by a migration runner) and the SQL plumbing.
export type { Migration } from "./schema/migration.ts";
export { storeMigrations } from "./schema/storeMigrations.ts";
export { quoteSchema } from "./schema/schemaName.ts";
export type { Queryable, Statement } from "./schema/tracedQuery.ts";
export { tracedQuery } from "./schema/tracedQuery.ts";

// Streams: append and read with optimistic concurrency, in one transaction per command.
export type { EventStore } from "./streams/eventStore.ts";
export { createEventStore } from "./streams/eventStore.ts";
export { EVENT_PAYLOAD_BYTES, chunkBySize } from "./streams/eventChunks.ts";
export { jsonTextOf, withBusCut, withJsonText } from "./streams/jsonText.ts";

// Commands: pure deciders, the one command handler, inline projections.
export type { Decider, DomainEvent } from "./commands/decider.ts";
export { fold } from "./commands/decider.ts";
export type {
  AppendedEvent,
  CommandHandler,
  CommandInput,
  CommandOptions,
  CommandScope,
  LockFirst,
  LockedFirst,
  Decision,
  Project,
  RowLock,
} from "./commands/handleCommand.ts";
export { commandScopeIn, createCommandHandler } from "./commands/handleCommand.ts";
export type { Projections, StatementProjection } from "./commands/projector.ts";
export { projector } from "./commands/projector.ts";

// Request keys: what a keyed request applied, and its answer for a retry (the gRPC binding's).
export { findRequest, storeReply, sweepRequests } from "./requests/appliedRequests.ts";

// Relay and messages: committed events to the JetStream stream in commit order, and back.
export { createRelay } from "./relay/relay.ts";
export { ensureStream } from "./relay/ensureStream.ts";
export { defaultSubject } from "./messages/subject.ts";
export { decodeEvent } from "./messages/eventCodec.ts";
export {
  BULK_DATA_CHARS,
  bulkDataJson,
  bulkDataText,
  cutToIds,
  longerThan,
} from "./messages/bulkData.ts";

// Consumers: each event processed once, in stream order, dead-lettered when poison.
export type { EventHandler } from "./consumers/processOnce.ts";
export type { ConsumerRunner } from "./consumers/consumer.ts";
export { runConsumer } from "./consumers/consumer.ts";
export { ensureConsumer } from "./consumers/ensureConsumer.ts";
