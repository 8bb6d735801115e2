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
