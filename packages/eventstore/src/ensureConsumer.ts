import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  jetstreamManager,
  type ConsumerConfig,
  type ConsumerInfo,
} from "@nats-io/jetstream";
import { nanos, type NatsConnection } from "@nats-io/nats-core";
import { isNotFound } from "./ensureStream.ts";

export interface EnsureConsumerOptions {
  stream: string;
  durable: string;
  /** One subject works on any server; several need nats-server 2.10+. Empty = everything. */
  filterSubjects: string[];
  maxDeliver: number;
  ackWaitMs: number;
  /** Server-side bound on unacknowledged messages across all workers. */
  maxAckPending?: number;
  /** Servers holding the consumer's state; default the stream's. */
  replicas?: number;
}

/**
 * The management step: creates the durable, explicit-ack pull consumer, or updates the
 * settings that may change. Workers only look consumers up; they never create them.
 */
export async function ensureConsumer(
  nc: NatsConnection,
  options: EnsureConsumerOptions,
): Promise<ConsumerInfo> {
  const { stream, durable, filterSubjects } = options;
  const mutable: Partial<ConsumerConfig> = {
    max_deliver: options.maxDeliver,
    ack_wait: nanos(options.ackWaitMs),
    ...(options.maxAckPending === undefined ? {} : { max_ack_pending: options.maxAckPending }),
    ...(options.replicas === undefined ? {} : { num_replicas: options.replicas }),
    ...(filterSubjects.length === 1 ? { filter_subject: filterSubjects[0] } : {}),
    ...(filterSubjects.length > 1 ? { filter_subjects: filterSubjects } : {}),
  };
  const jsm = await jetstreamManager(nc);
  for (let attempt = 1; ; attempt++) {
    const exists = await jsm.consumers.info(stream, durable).then(
      () => true,
      (err: unknown) => {
        if (isNotFound(err, JetStreamApiCodes.ConsumerNotFound)) return false;
        throw err;
      },
    );
    if (exists) return jsm.consumers.update(stream, durable, mutable);
    try {
      return await jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...mutable,
      });
    } catch (err) {
      // Lost a race with another creator: update theirs instead.
      if (attempt < 2) continue;
      throw err;
    }
  }
}
