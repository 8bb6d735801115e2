import type { PoolClient } from "pg";
import {
  commandScopeIn,
  tracedQuery,
  type CommandScope,
  type EventMetadata,
  type StoredEvent,
} from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import { streamId, type SpaceDeleted } from "@argus/contracts";
import type { Clock } from "@argus/platform";
import { cascadeMetadata, spaceDeletedOf, spaceEventsConsumer, unlessGone } from "@argus/spaces";
import { configInUse } from "../annotationConfigs/annotationConfigFacts.ts";
import { aiIntegrationDecider } from "../aiIntegrations/aiIntegrationDecider.ts";
import { integrationDecider } from "../integrations/integrationDecider.ts";
import { annotationConfigDecider } from "../annotationConfigs/annotationConfigDecider.ts";
import { annotationQueueDecider } from "../annotationQueues/annotationQueueDecider.ts";
import { evaluatorDecider } from "../evaluators/evaluatorDecider.ts";
import { projectDecider } from "../projects/projectDecider.ts";
import { promptDecider } from "../prompts/promptDecider.ts";
import { spaceCascadePlan, type CascadeStep, type SpaceHoldings } from "./spaceCascadePlan.ts";
import { tagDecider } from "../tags/tagDecider.ts";
import { project } from "../projection.ts";

export const SPACE_CASCADE_CONSUMER = "catalog-space-cascade";

/**
 * Deleting a space (or its organization, which comes with one SpaceDeleted per space) deletes
 * what the space holds in the catalog. The consumer is the shared one of every service owning
 * space-scoped resources (`spaceEventsConsumer` of @argus/spaces: every space event keeps
 * `space_facts`, a SpaceDeleted is shape-checked); the cascade below is the catalog's own.
 */
export function spaceCascadeConsumer(o: {
  schema: string;
  subjectRoot: string;
  clock: Clock;
}): DurableConsumerOptions {
  return spaceEventsConsumer({
    durable: SPACE_CASCADE_CONSUMER,
    subjectRoot: o.subjectRoot,
    onSpaceDeleted: (tx, deleted, event) =>
      cascadeDeletedSpace(tx, o.schema, deleted, event, o.clock),
  });
}

type Step = (scope: CommandScope, id: string, m: EventMetadata, c: Cause) => Promise<unknown>;
type Cause = { spaceId: string; now: Date };

/** Each step is the aggregate's own command, decided on its stream's folded state. */
const STEPS: Record<CascadeStep["aggregate"], Step> = {
  annotation_queue: (s, id, m, { now }) =>
    s.decide(
      streamId("annotation_queue", id),
      annotationQueueDecider,
      { type: "DeleteAnnotationQueue", now },
      m,
    ),
  annotation_config: (s, id, m, { now }) =>
    s.decide(
      streamId("annotation_config", id),
      annotationConfigDecider,
      {
        build: async (_, client) => ({
          type: "DeleteAnnotationConfig" as const,
          usedByQueue: await configInUse(client, id),
          now,
        }),
      },
      m,
    ),
  evaluator: (s, id, m, { now }) =>
    s.decide(streamId("evaluator", id), evaluatorDecider, { type: "DeleteEvaluator", now }, m),
  prompt: (s, id, m, { now }) =>
    s.decide(streamId("prompt", id), promptDecider, { type: "DeletePrompt", now }, m),
  project: (s, id, m, { now }) =>
    s.decide(streamId("project", id), projectDecider, { type: "DeleteProject", now }, m),
  tag: (s, id, m, { now }) =>
    s.decide(streamId("tag", id), tagDecider, { type: "DeleteTag", now }, m),
  ai_integration: (s, id, m, { spaceId, now }) =>
    s.decide(
      streamId("ai_integration", id),
      aiIntegrationDecider,
      { type: "RemoveSpaceScopings", spaceId, now },
      m,
    ),
  integration: (s, id, m, { spaceId, now }) =>
    s.decide(
      streamId("integration", id),
      integrationDecider,
      { type: "RemoveSpaceScopings", spaceId, now },
      m,
    ),
};

/**
 * Runs in the transaction of the runner's processed-event marker, so a redelivery of an
 * applied SpaceDeleted is skipped, and a failed one leaves nothing behind. Each resource is
 * deleted by its decider from its stream as read here: one already gone (a 404) is skipped; a
 * command racing on the same stream fails the append, the transaction rolls back and the
 * redelivery finds the resource's new state.
 */
export async function cascadeSpaceDeleted(
  tx: PoolClient,
  schema: string,
  event: StoredEvent,
  clock: Clock,
): Promise<void> {
  const deleted = spaceDeletedOf(event);
  if (deleted) await cascadeDeletedSpace(tx, schema, deleted, event, clock);
}

/** The cascade of one checked SpaceDeleted; `event` is its cause in the cascade's metadata. */
async function cascadeDeletedSpace(
  tx: PoolClient,
  schema: string,
  deleted: SpaceDeleted,
  event: StoredEvent,
  clock: Clock,
): Promise<void> {
  const spaceId = deleted.data.id;
  const scope = commandScopeIn(tx, schema, project);
  const metadata = cascadeMetadata(deleted, event);
  const cause = { spaceId, now: clock.now() };
  for (const step of spaceCascadePlan(await holdingsOf(tx, spaceId))) {
    await unlessGone(STEPS[step.aggregate](scope, step.id, metadata, cause));
  }
}

/** The space's live resources, from the projections (deleted ones are already gone). */
async function holdingsOf(tx: PoolClient, spaceId: string): Promise<SpaceHoldings> {
  const ids = async (table: string, where = "space_id = $1"): Promise<string[]> => {
    const { rows } = await tracedQuery<{ id: string }>(
      tx,
      `cascade ${table}`,
      `select id from ${table} where ${where} order by id`,
      [spaceId],
    );
    return rows.map((r) => r.id);
  };
  return {
    tags: await ids("tags"),
    projects: await ids("projects"),
    prompts: await ids("prompts"),
    evaluators: await ids("evaluators"),
    annotationConfigs: await ids("annotation_configs"),
    annotationQueues: await ids("annotation_queues"),
    aiIntegrations: await ids("ai_integrations", "$1::uuid = any(scoped_space_ids)"),
    integrations: await ids("integrations", "$1::uuid = any(scoped_space_ids)"),
  };
}
