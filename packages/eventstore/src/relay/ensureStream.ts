import {
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstreamManager,
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
      current.config.subjects?.join("\n") === wanted.subjects.join("\n");
    return same ? current : await jsm.streams.update(name, { ...current.config, ...wanted });
  }
}

export function isNotFound(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}
