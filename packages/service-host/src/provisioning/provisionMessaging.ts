import type { NatsConnection } from "@nats-io/nats-core";
import { SERVICE_REGISTRY } from "@argus/platform";
import { ensureConsumer, ensureStream } from "@argus/eventstore";

/** Deliveries of one message before it is dead-lettered (the consumer runner agrees). */
export const MAX_DELIVER = 10;

/**
 * How long a delivered message stays unacknowledged before the server delivers it again. It
 * bounds the wait of a message handed to a pull that died with its server (a JetStream cluster
 * losing the consumer's leader): the new leader only redelivers it after this. A slow handler
 * keeps its message meanwhile (the runner's `working()` heartbeat, every half of it), and a
 * redelivery of a message already handled finds its processed marker.
 */
const ACK_WAIT_MS = 10_000;

/**
 * The management step for messaging: the events stream and every durable consumer the service
 * registry declares. Runs with the manager's NATS identity (the migration job, `./argus up`,
 * the test stack) — services themselves may only use what it made. Idempotent; `replicas`
 * (stream and consumers alike: on a JetStream cluster, 3 survives the loss of a server) also
 * re-sizes what exists.
 */
export async function provisionMessaging(
  nc: NatsConnection,
  o: { stream: string; subjectRoot: string; services?: readonly string[]; replicas?: number },
): Promise<void> {
  const replicas = o.replicas === undefined ? {} : { replicas: o.replicas };
  await ensureStream(nc, { name: o.stream, subjects: [`${o.subjectRoot}.>`], ...replicas });
  for (const d of SERVICE_REGISTRY) {
    if (o.services && !o.services.includes(d.name)) continue;
    for (const c of d.consumes ?? [])
      await ensureConsumer(nc, {
        stream: o.stream,
        durable: c.durable,
        filterSubjects: [`${o.subjectRoot}.${c.subjects}`],
        maxDeliver: MAX_DELIVER,
        ackWaitMs: ACK_WAIT_MS,
        ...replicas,
      });
  }
}
