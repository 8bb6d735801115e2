import type { StoredEvent } from "../types.ts";

/** Columns every event query selects, with 64-bit values as text so no precision is lost. */
export const eventColumns = `global_position::text AS global_position, transaction_id::text AS transaction_id,
  stream_id, stream_version, event_id, event_type, data, metadata, recorded_at`;

export interface EventRow {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_version: number;
  event_id: string;
  event_type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    globalPosition: BigInt(row.global_position),
    transactionId: BigInt(row.transaction_id),
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    eventId: row.event_id,
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  };
}
