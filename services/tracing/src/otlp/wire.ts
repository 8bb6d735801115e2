import type { KeyValue } from "@argus/proto/otlp/common/v1/common";

/*
 * What both OTLP encodings yield before validation. Ids are hex text because that is what OTLP/JSON
 * sends and what spans store; a JSON id that is not hex stays as sent and fails validation like a
 * protobuf id of the wrong length, so both encodings reject the same spans for the same reasons.
 */

export interface WireEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: KeyValue[];
}

export interface WireSpan {
  /** Lowercase hex of the id bytes (OTLP/JSON: the string sent, lowercased). */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  /** The OTLP status code as sent (0 unset, 1 ok, 2 error; anything else reads as unset). */
  statusCode: number;
  statusMessage: string;
  attributes: KeyValue[];
  events: WireEvent[];
}

/** One ResourceSpans; the spans of all its scopes, in order. */
export interface WireResourceSpans {
  resourceAttributes: KeyValue[];
  spans: WireSpan[];
}
