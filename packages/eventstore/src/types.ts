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
 * An event as a consumer may take it off the bus: with its data's UTF-8 JSON text as it came,
 * and whether that is a bulk write's cut to its records' ids (bulkData.ts), beside `data`.
 */
export interface ConsumedEvent extends StoredEvent {
  readonly dataText?: { readonly bytes: Uint8Array; readonly cut: boolean };
}

/** A position in the global log: commit order is (transactionId, globalPosition). */
export interface Checkpoint {
  transactionId: bigint;
  globalPosition: bigint;
}
