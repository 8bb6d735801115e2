import { randomUUID } from "node:crypto";
import { headers } from "@nats-io/transport-node";
import { beforeAll, describe, expect, it } from "vitest";
import { AiIntegrationServiceService as AI } from "@argus/proto/catalog/v1/ai_integrations";
import {
  AnnotationConfigServiceService as C,
  AnnotationQueueServiceService as Q,
} from "@argus/proto/catalog/v1/annotations";
import { EvaluatorServiceService as E } from "@argus/proto/catalog/v1/evaluators";
import { ProjectServiceService as P } from "@argus/proto/catalog/v1/projects";
import { PromptServiceService as PR } from "@argus/proto/catalog/v1/prompts";
import { TagServiceService as T } from "@argus/proto/catalog/v1/tags";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { decodeEvent } from "@argus/eventstore";
import { systemClock } from "@argus/platform";
import { cascadeSpaceDeleted, SPACE_CASCADE_CONSUMER } from "../src/cascades/spaceCascade.ts";
import { aiIntegrationConfig, codeEvaluatorContent, promptContent } from "./catalogInputs.ts";
import { problemOf, startCatalogStack } from "./promptsStack.ts";
import { startedForFile, uniqueName } from "@argus/testkit";

const t = startedForFile(() => startCatalogStack());

const page = { limit: 100, after: "" };
const list = { page, spaceId: "", spaceName: "", name: "" };

/** One of every catalog resource in the space, tagged and versioned where that exists. */
async function fill(spaceId: string) {
  const tag = await t.call(T.createTag, { spaceId, name: uniqueName("tag") });
  const project = await t.call(P.createProject, { spaceId, name: uniqueName("p") });
  await t.call(T.attachTags, { resourceType: "project", resourceId: project.id, tagIds: [tag.id] });
  const prompt = await t.call(PR.createPrompt, {
    spaceId,
    name: uniqueName("prompt"),
    version: promptContent(),
  });
  const evaluator = await t.call(E.createEvaluator, {
    spaceId,
    name: uniqueName("eval"),
    type: "CODE",
    version: codeEvaluatorContent(),
  });
  const config = await t.call(C.createAnnotationConfig, {
    spaceId,
    name: uniqueName("cfg"),
    type: "CATEGORICAL",
    values: [
      { label: "good", score: 1 },
      { label: "bad", score: 0 },
    ],
    optimizationDirection: "",
  });
  const queue = await t.call(Q.createAnnotationQueue, {
    spaceId,
    name: uniqueName("queue"),
    annotationConfigIds: [config.id],
    annotatorEmails: [],
    assignmentMethod: "ALL",
    recordSources: [
      {
        recordType: "SPAN",
        projectId: project.id,
        datasetId: "",
        datasetVersionId: "",
        startTime: "2026-01-01T00:00:00Z",
        endTime: "2026-01-02T00:00:00Z",
        ids: ["a"],
      },
    ],
  });
  return {
    tag: tag.id,
    project: project.id,
    prompt: prompt.prompt!.id,
    evaluator: evaluator.evaluator!.id,
    config: config.id,
    queue: queue.id,
  };
}

type Held = Awaited<ReturnType<typeof fill>>;

const integration = (scopings: { organizationId: string; spaceId: string }[]) =>
  t.call(AI.createAiIntegration, {
    config: aiIntegrationConfig({ scopings }),
    apiKey: "sk-test-0123456789-WXYZ",
  });

/** What reads of each resource answer: "ok" or the problem type. */
const reads = async (h: Held) => ({
  tag: await problemOf(t.call(T.getTag, { id: h.tag })),
  project: await problemOf(t.call(P.getProject, { id: h.project })),
  prompt: await problemOf(t.call(PR.getPrompt, { id: h.prompt, versionId: "", label: "" })),
  evaluator: await problemOf(t.call(E.getEvaluator, { id: h.evaluator, versionId: "" })),
  config: await problemOf(t.call(C.getAnnotationConfig, { id: h.config })),
  queue: await problemOf(t.call(Q.getAnnotationQueue, { id: h.queue })),
});

/** Every id the account-wide lists show. */
const listed = async (): Promise<Set<string>> => {
  const all = [
    ...(await t.call(T.listTags, list)).tags,
    ...(await t.call(P.listProjects, list)).projects,
    ...(await t.call(PR.listPrompts, list)).prompts,
    ...(await t.call(E.listEvaluators, list)).evaluators,
    ...(await t.call(C.listAnnotationConfigs, list)).annotationConfigs,
    ...(await t.call(Q.listAnnotationQueues, list)).annotationQueues,
    ...(
      await t.call(AI.listAiIntegrations, {
        page,
        spaceId: "",
        name: "",
        spaceName: "",
        providers: [],
      })
    ).aiIntegrations,
  ];
  return new Set(all.map((r) => r.id));
};

const cascadeEvents = async (causeEventId: string) =>
  (
    await t.pool.query<{
      stream_id: string;
      event_type: string;
      metadata: Record<string, unknown>;
    }>(
      `select stream_id, event_type, metadata from events
        where metadata->>'cause_event_id' = $1 order by global_position`,
      [causeEventId],
    )
  ).rows;

const spaceDeletedEventId = async (spaceId: string): Promise<string> => {
  const { rows } = await t.pool.query<{ event_id: string }>(
    `select event_id from identity.events where stream_id = $1 and event_type = 'SpaceDeleted'`,
    [`space-${spaceId}`],
  );
  return rows[0]!.event_id;
};

async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const msgId = (id: string) => {
  const h = headers();
  h.set("Nats-Msg-Id", id);
  return h;
};

const deleteSpace = (id: string) =>
  t.callIdentity(IdentityServiceService.deleteSpace, { id }, t.admin);

describe("deleting a space cascades to what it holds in the catalog", () => {
  let doomed: string;
  let kept: string;
  let doomedHeld: Held;
  let keptHeld: Held;
  let causeId: string;
  const ai: Record<string, string> = {};

  beforeAll(async () => {
    doomed = await t.createSpace();
    kept = await t.createSpace();
    doomedHeld = await fill(doomed);
    keptHeld = await fill(kept);
    const org = t.organizationId;
    ai.onlyDoomed = (await integration([{ organizationId: org, spaceId: doomed }])).id;
    ai.both = (
      await integration([
        { organizationId: org, spaceId: doomed },
        { organizationId: org, spaceId: kept },
      ])
    ).id;
    ai.accountWide = (await integration([])).id;
    await deleteSpace(doomed);
    causeId = await spaceDeletedEventId(doomed);
  }, 60_000);

  it("deletes every resource of the space within a bounded wait, through their own Deleted events", async () => {
    const gone = await eventually(
      () => reads(doomedHeld),
      (r) => Object.values(r).every((v) => v === "resource-not-found"),
    );
    expect(Object.values(gone)).toEqual(Array(6).fill("resource-not-found"));
    const shown = await listed();
    for (const id of Object.values(doomedHeld)) expect(shown.has(id)).toBe(false);

    const events = await cascadeEvents(causeId);
    expect(events.map((e) => `${e.event_type} ${e.stream_id}`).sort()).toEqual(
      [
        `AnnotationQueueDeleted annotation_queue-${doomedHeld.queue}`,
        `AnnotationConfigDeleted annotation_config-${doomedHeld.config}`,
        `EvaluatorDeleted evaluator-${doomedHeld.evaluator}`,
        `PromptDeleted prompt-${doomedHeld.prompt}`,
        `ProjectDeleted project-${doomedHeld.project}`,
        `TagDeleted tag-${doomedHeld.tag}`,
        `AiIntegrationDeleted ai_integration-${ai.onlyDoomed}`,
        `AiIntegrationUpdated ai_integration-${ai.both}`,
      ].sort(),
    );
    for (const e of events)
      expect(e.metadata).toMatchObject({
        actor: "system:cascade",
        cause_event_id: causeId,
        space_id: doomed,
        account_id: t.admin.accountId,
      });

    // Nothing of the space is left in any projection (versions, records, tags, registry).
    const left = await t.pool.query<{ n: number }>(
      `select (select count(*) from resources where space_id = $1)
            + (select count(*) from tag_attachments where space_id = $1)
            + (select count(*) from prompt_versions v join prompts p on p.id = v.prompt_id where p.space_id = $1)
            + (select count(*) from evaluator_versions where evaluator_id = $2)
            + (select count(*) from annotation_queue_records where queue_id = $3)
            + (select count(*) from ai_integration_secrets where integration_id = $4) as n`,
      [doomed, doomedHeld.evaluator, doomedHeld.queue, ai.onlyDoomed],
    );
    expect(Number(left.rows[0]!.n)).toBe(0);
  });

  it("leaves the other space's resources and the integration's other scopings alone", async () => {
    await eventually(
      () => reads(doomedHeld),
      (r) => r.tag === "resource-not-found",
    );
    expect(Object.values(await reads(keptHeld))).toEqual(Array(6).fill("ok"));
    expect(
      (await t.call(T.listResourceTags, { resourceType: "project", resourceId: keptHeld.project }))
        .tags,
    ).toHaveLength(1);
    const both = await t.call(AI.getAiIntegration, { id: ai.both! });
    expect(both.config!.scopings.map((s) => s.spaceId)).toEqual([kept]);
    expect(both.hasApiKey).toBe(true);
    expect(await problemOf(t.call(AI.getAiIntegration, { id: ai.onlyDoomed! }))).toBe(
      "resource-not-found",
    );
    expect((await t.call(AI.getAiIntegration, { id: ai.accountWide! })).config!.scopings).toEqual(
      [],
    );
  });

  it("a redelivered SpaceDeleted has no second effect", async () => {
    await eventually(
      () => cascadeEvents(causeId),
      (e) => e.length === 8,
    );
    // Through the runner: the same event again (a new message id, so JetStream keeps it).
    const stored = await t.nc.request(
      `$JS.API.STREAM.MSG.GET.${t.stream}`,
      JSON.stringify({ last_by_subj: `${t.root}.identity.space.SpaceDeleted` }),
      { timeout: 2000 },
    );
    const raw = Buffer.from(stored.json<{ message: { data: string } }>().message.data, "base64");
    expect(decodeEvent(raw).eventId).toBe(causeId);
    // A request on a stream subject is a JetStream publish; its reply is the PubAck.
    const published = await t.nc.request(`${t.root}.identity.space.SpaceDeleted`, raw, {
      headers: msgId(randomUUID()),
      timeout: 2000,
    });
    const ack = published.json<{ seq: number }>();
    await eventually(
      async () => {
        const info = await t.nc.request(
          `$JS.API.CONSUMER.INFO.${t.stream}.${SPACE_CASCADE_CONSUMER}`,
          "",
          { timeout: 2000 },
        );
        return info.json<{ ack_floor: { stream_seq: number } }>().ack_floor.stream_seq;
      },
      (seq) => seq >= ack.seq,
    );
    expect(await cascadeEvents(causeId)).toHaveLength(8);

    // And the handler alone, past the processed marker: nothing is left to delete.
    const tx = await t.pool.connect();
    try {
      await tx.query("begin");
      await cascadeSpaceDeleted(tx, "catalog", decodeEvent(raw), systemClock);
      await tx.query("commit");
    } finally {
      tx.release();
    }
    expect(await cascadeEvents(causeId)).toHaveLength(8);
  });
});
