import {
  appendToStream,
  tracedQuery,
  type DurableConsumerOptions,
  type StoredEvent,
} from "@argus/eventstore";
import type { PoolClient } from "pg";
import { AI_INTEGRATION_COLUMNS, type AiIntegrationRow } from "./aiIntegrationsRows.ts";
import { decideSpaceCascade, type SpaceHoldings } from "./domain/spaceCascade.ts";
import { project, type ProjectedEvent } from "./projection.ts";

export const SPACE_CASCADE_CONSUMER = "catalog-space-cascade";
export const CASCADE_ACTOR = "system:cascade";

const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * Deleting a space (or its organization, which comes with one SpaceDeleted per space) deletes
 * what the space holds in the catalog. Identity publishes SpaceDeleted on
 * `<root>.identity.space.SpaceDeleted`; nats-server 2.9 takes one filter subject, so the
 * durable takes the space aggregate's subjects and skips the other event types.
 */
export function spaceCascadeConsumer(o: {
  schema: string;
  subjectRoot: string;
}): DurableConsumerOptions {
  return {
    durable: SPACE_CASCADE_CONSUMER,
    filterSubject: `${o.subjectRoot}.identity.space.>`,
    concurrency: 4,
    // A racing command on a cascaded stream is a ConcurrencyError: the nak'd redelivery retries.
    handler: (tx, event) => cascadeSpaceDeleted(tx, o.schema, event),
  };
}

/**
 * Runs in the transaction of the runner's processed-event marker, so a redelivery of an
 * applied SpaceDeleted is skipped, and a failed one leaves nothing behind. Each append expects
 * the stream's current version: a command racing on the same resource makes this attempt a
 * ConcurrencyError, and the redelivery finds the resource's new state (or that it is gone).
 */
export async function cascadeSpaceDeleted(
  tx: PoolClient,
  schema: string,
  event: StoredEvent,
): Promise<void> {
  if (event.type !== "SpaceDeleted") return;
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (typeof data.id !== "string") return;
  const holdings = await loadHoldings(tx, data.id);
  const metadata = {
    ...(typeof data.account_id === "string" ? { account_id: data.account_id } : {}),
    space_id: data.id,
    actor: CASCADE_ACTOR,
    cause_event_id: event.eventId,
    cause_event_type: event.type,
  };
  for (const append of decideSpaceCascade(holdings, new Date())) {
    const version = await streamVersion(tx, append.streamId);
    await appendToStream(
      tx,
      schema,
      append.streamId,
      version,
      append.events.map((e) => ({ ...e, metadata })),
      { maxEventBytes: MAX_EVENT_BYTES },
    );
    await project(tx, append.events as readonly ProjectedEvent[]);
  }
}

async function streamVersion(tx: PoolClient, streamId: string): Promise<number> {
  const { rows } = await tracedQuery<{ version: number }>(
    tx,
    "cascade stream version",
    "select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1",
    [streamId],
  );
  return rows[0]?.version ?? 0;
}

/** The live resources of the space, from the projections (deleted ones are already gone). */
async function loadHoldings(tx: PoolClient, spaceId: string): Promise<SpaceHoldings> {
  const ids = async (table: string): Promise<string[]> => {
    const { rows } = await tracedQuery<{ id: string }>(
      tx,
      `cascade ${table}`,
      `select id from ${table} where space_id = $1 order by id`,
      [spaceId],
    );
    return rows.map((r) => r.id);
  };
  const { rows: integrations } = await tracedQuery<AiIntegrationRow>(
    tx,
    "cascade ai_integrations",
    `select ${AI_INTEGRATION_COLUMNS} from ai_integrations where $1::uuid = any(scoped_space_ids) order by id`,
    [spaceId],
  );
  return {
    spaceId,
    tags: await ids("tags"),
    projects: await ids("projects"),
    prompts: await ids("prompts"),
    evaluators: await ids("evaluators"),
    annotationConfigs: await ids("annotation_configs"),
    annotationQueues: await ids("annotation_queues"),
    aiIntegrations: integrations.map((r) => ({
      id: r.id,
      config: {
        name: r.name,
        provider: r.provider,
        base_url: r.base_url,
        model_names: r.model_names,
        headers: r.headers,
        enable_default_models: r.enable_default_models,
        function_calling_enabled: r.function_calling_enabled,
        auth_type: r.auth_type,
        provider_metadata: r.provider_metadata,
        scopings: r.scopings,
      },
      key: { has_api_key: r.has_api_key, api_key_hint: r.api_key_hint },
    })),
  };
}
