import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation } from "@opentelemetry/api";
import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import { encodeEventWithData } from "../messages/eventCodec.ts";
import { metadataGetter, natsHeaderSetter } from "../messages/traceCarriers.ts";
import { tracer } from "../schema/tracedQuery.ts";
import type { EventWithDataText } from "../streams/readBatch.ts";

/**
 * Publishes one event and resolves with its PubAck. The msgID is the event id, so the stream's
 * duplicate window drops a re-publish after a crash. The PRODUCER span continues the trace of
 * the request that appended the event, and its context travels on in the message headers.
 */
export function publishEvent(
  js: JetStreamClient,
  subject: string,
  event: EventWithDataText,
  timeoutMs: number,
): Promise<PubAck> {
  const parent = propagation.extract(ROOT_CONTEXT, event.metadata, metadataGetter);
  const attributes = {
    "messaging.system": "nats",
    "messaging.operation.type": "send",
    "messaging.destination.name": subject,
    "messaging.message.id": event.eventId,
  };
  return tracer.startActiveSpan(
    `send ${subject}`,
    { kind: SpanKind.PRODUCER, attributes },
    parent,
    async (span) => {
      try {
        const hdrs = headers();
        propagation.inject(context.active(), hdrs, natsHeaderSetter);
        const ack = await js.publish(
          subject,
          encodeEventWithData(event, event.dataJson, event.dataCut),
          {
            msgID: event.eventId,
            headers: hdrs,
            timeout: timeoutMs,
          },
        );
        span.setAttribute("messaging.nats.duplicate", ack.duplicate);
        return ack;
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
