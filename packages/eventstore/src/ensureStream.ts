import {
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstreamManager,
  type JetStreamManager,
  type StreamInfo,
} from "@nats-io/jetstream";
import { nanos, type NatsConnection } from "@nats-io/nats-core";

export interface EnsureStreamOptions {
  /** Default ARGUS_EVENTS. */
  name?: string;
  /** Default ["argus.>"]. */
  subjects?: string[];
  /** How long a re-published msgID is recognised as a duplicate; default 2 minutes. */
  duplicateWindowMs?: number;
  /** Servers holding a copy (1 to 5; at most the cluster's size); default the server's (1). */
  replicas?: number;
}

/** Creates the events stream, or brings an existing one to this configuration. Idempotent. */
export async function ensureStream(
  nc: NatsConnection,
  options: EnsureStreamOptions = {},
): Promise<StreamInfo> {
  const name = options.name ?? "ARGUS_EVENTS";
  const wanted = {
    subjects: options.subjects ?? ["argus.>"],
    duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
    ...(options.replicas === undefined ? {} : { num_replicas: options.replicas }),
  };
  const jsm = await jetstreamManager(nc);
  for (let attempt = 1; ; attempt++) {
    const current = await jsm.streams.info(name).catch((err: unknown) => {
      if (isNotFound(err, JetStreamApiCodes.StreamNotFound)) return null;
      throw err;
    });
    if (current === null) {
      try {
        return await jsm.streams.add({
          name,
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          ...wanted,
        });
      } catch (err) {
        // Another process created it first: go round once more and update theirs.
        if (attempt < 2) continue;
        throw err;
      }
    }
    const same =
      current.config.duplicate_window === wanted.duplicate_window &&
      current.config.subjects?.join("\n") === wanted.subjects.join("\n") &&
      (wanted.num_replicas === undefined || current.config.num_replicas === wanted.num_replicas);
    if (same) return current;
    const updated = await jsm.streams.update(name, { ...current.config, ...wanted });
    const resized =
      wanted.num_replicas !== undefined && wanted.num_replicas !== current.config.num_replicas;
    return resized ? await led(jsm, name) : updated;
  }
}

/**
 * A re-sized stream elects a leader again, and meanwhile answers "stream not found": wait for
 * it (up to 30 s), so that what follows (its consumers) finds it.
 */
async function led(jsm: JetStreamManager, name: string): Promise<StreamInfo> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const info = await jsm.streams.info(name).catch((err: unknown) => {
      if (isNotFound(err, JetStreamApiCodes.StreamNotFound) && Date.now() < deadline) return null;
      throw err;
    });
    if (info && (!info.cluster || info.cluster.leader)) return info;
    if (Date.now() >= deadline) throw new Error(`stream ${name} has no leader after re-sizing`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function isNotFound(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}
