export type EventMetadata = Record<string, unknown>;

/** An event as a command produces it; positions and time are assigned by the store. */
export interface NewEvent {
  type: string;
  data: unknown;
  metadata?: EventMetadata;
  /**
   * Its id, when the caller must know it before the append answers (a projection sent right
   * behind the append reads the event's row by it); a new one otherwise.
   */
  eventId?: string;
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

/**
 * An event's data as UTF-8 JSON text, and whether that is a bulk write's cut to its records'
 * ids (bulkData.ts), as the bus carries it.
 */
export interface DataText {
  readonly bytes: Uint8Array;
  readonly cut: boolean;
}

/** An event as a consumer may take it off the bus: its data's text as it came beside `data`. */
export interface ConsumedEvent extends StoredEvent {
  readonly dataText?: DataText;
}

/** A position in the global log: commit order is (transactionId, globalPosition). */
export interface Checkpoint {
  transactionId: bigint;
  globalPosition: bigint;
}
