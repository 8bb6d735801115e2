/** The stream moved on since the caller read it, after every retry was used. */
export class ConcurrencyError extends Error {
  override readonly name = "ConcurrencyError";
  readonly code = "CONCURRENCY_CONFLICT";
  readonly streamId: string;
  readonly expectedVersion: number | "any";

  constructor(streamId: string, expectedVersion: number | "any", options?: ErrorOptions) {
    super(`stream ${streamId} is not at expected version ${expectedVersion}`, options);
    this.streamId = streamId;
    this.expectedVersion = expectedVersion;
  }
}

/** An event that would not fit in one NATS message; the caller must split it (413/422). */
export class EventTooLargeError extends Error {
  override readonly name = "EventTooLargeError";
  readonly code = "EVENT_TOO_LARGE";
  readonly bytes: number;
  readonly maxBytes: number;

  constructor(type: string, bytes: number, maxBytes: number) {
    super(`event ${type} is ${bytes} bytes, more than the ${maxBytes} a message may carry`);
    this.bytes = bytes;
    this.maxBytes = maxBytes;
  }
}

/**
 * The database went away (refused, reset, shut down) before the transaction's COMMIT was sent:
 * Postgres rolls back a transaction whose session ends, so nothing of it happened and running
 * it again is safe. `cause` is the driver's error.
 */
export class ConnectionLostError extends Error {
  override readonly name = "ConnectionLostError";
  constructor(cause: unknown) {
    super(`database connection lost before commit: ${(cause as Error)?.message ?? cause}`, {
      cause,
    });
  }
}

/**
 * The connection broke after COMMIT was sent and before its answer came: the transaction may
 * or may not have committed, and nothing here can tell which. Never run again blindly.
 */
export class CommitOutcomeUnknownError extends Error {
  override readonly name = "CommitOutcomeUnknownError";
  constructor(cause: unknown) {
    super(`database connection lost during commit: ${(cause as Error)?.message ?? cause}`, {
      cause,
    });
  }
}
