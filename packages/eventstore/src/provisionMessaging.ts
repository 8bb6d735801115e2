import type { NatsConnection } from "@nats-io/nats-core";
import { SERVICE_REGISTRY } from "@argus/platform";
import { ensureConsumer } from "./ensureConsumer.ts";
import { ensureStream } from "./ensureStream.ts";

/** Deliveries of one message before it is dead-lettered (the consumer runner agrees). */
export const MAX_DELIVER = 10;

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
        ackWaitMs: 30_000,
        ...replicas,
      });
  }
}
