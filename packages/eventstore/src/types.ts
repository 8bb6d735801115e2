export type EventMetadata = Record<string, unknown>;

/** An event as a command produces it; ids, positions and time are assigned by the store. */
export interface NewEvent {
  type: string;
  data: unknown;
  metadata?: EventMetadata;
}

export interface StoredEvent {
  globalPosition: bigint;
  transactionId: bigint;
  streamId: string;
  streamVersion: number;
  eventId: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  recordedAt: Date;
}

/** A position in the global log: commit order is (transactionId, globalPosition). */
export interface Checkpoint {
  transactionId: bigint;
  globalPosition: bigint;
}
