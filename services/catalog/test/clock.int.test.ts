import { beforeAll, describe, expect, it } from "vitest";
import { AiIntegrationServiceService as AI } from "@argus/proto/catalog/v1/ai_integrations";
import { EvaluatorServiceService as E } from "@argus/proto/catalog/v1/evaluators";
import { ProjectDirectoryService } from "@argus/proto/catalog/v1/project_directory";
import { ProjectServiceService as P } from "@argus/proto/catalog/v1/projects";
import { PromptServiceService as PR } from "@argus/proto/catalog/v1/prompts";
import { TagServiceService as T } from "@argus/proto/catalog/v1/tags";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { fixedClock } from "@argus/platform";
import { startedForFile, uniqueName } from "@argus/testkit";
import { aiIntegrationConfig, codeEvaluatorContent, promptContent } from "./catalogInputs.ts";
import { startCatalogStack } from "./promptsStack.ts";

// Far from the wall clock, so a timestamp taken from the system clock cannot pass for it.
const PINNED = new Date("2031-05-06T07:08:09.123Z");
const clock = fixedClock(PINNED);
const at = (d: Date) => d.toISOString();

const t = startedForFile(() => startCatalogStack({ clock }));
let spaceId: string;

beforeAll(async () => {
  spaceId = await t.createSpace();
}, 60_000);

describe("the catalog takes 'now' from its injected clock", () => {
  it("a tag is created at the pinned time; an update in the same millisecond still moves updated_at on by 1 ms", async () => {
    clock.set(PINNED);
    const created = await t.call(T.createTag, { spaceId, name: uniqueName("tag") });
    expect([created.createdAt, created.updatedAt]).toEqual([at(PINNED), at(PINNED)]);
    expect((await t.call(T.getTag, { id: created.id })).createdAt).toBe(at(PINNED));

    const same = await t.call(T.updateTag, {
      id: created.id,
      description: "same instant",
      clearDescription: false,
      clearColor: false,
    });
    expect(same.updatedAt).toBe(at(new Date(PINNED.getTime() + 1)));

    clock.advance(60_000);
    const later = await t.call(T.updateTag, {
      id: created.id,
      description: "a minute on",
      clearDescription: false,
      clearColor: false,
    });
    expect(later.updatedAt).toBe(at(new Date(PINNED.getTime() + 60_000)));
    expect(later.createdAt).toBe(at(PINNED));
  });

  it("projects, prompts, evaluators and AI integrations carry the clock's time, versions included", async () => {
    const now = new Date("2032-01-02T03:04:05.006Z");
    clock.set(now);
    const project = await t.call(P.createProject, { spaceId, name: uniqueName("p") });
    expect(project.createdAt).toBe(at(now));
    expect((await t.call(P.getProject, { id: project.id })).createdAt).toBe(at(now));

    const prompt = await t.call(PR.createPrompt, {
      spaceId,
      name: uniqueName("prompt"),
      version: promptContent(),
    });
    expect([prompt.prompt!.createdAt, prompt.version!.createdAt]).toEqual([at(now), at(now)]);

    const evaluator = await t.call(E.createEvaluator, {
      spaceId,
      name: uniqueName("eval"),
      type: "CODE",
      version: codeEvaluatorContent(),
    });
    expect([evaluator.evaluator!.createdAt, evaluator.version!.createdAt]).toEqual([
      at(now),
      at(now),
    ]);

    const ai = await t.call(AI.createAiIntegration, {
      config: aiIntegrationConfig(),
      apiKey: "sk-test-0123456789-WXYZ",
    });
    expect(ai.createdAt).toBe(at(now));
  });

  it("a project ingestion creates through the directory is created at the clock's time", async () => {
    const now = new Date("2033-03-03T03:03:03.003Z");
    clock.set(now);
    const ensured = await t.asService(
      ProjectDirectoryService.ensureProject,
      {
        accountId: t.admin.accountId,
        spaceId,
        name: uniqueName("ingested"),
        actorUserId: "",
        actorServiceAccountId: "",
        apiKeyId: "",
      },
      "tracing",
    );
    expect((await t.call(P.getProject, { id: ensured.id })).createdAt).toBe(at(now));
  });

  it("the space cascade stamps its deletions with the clock's time", async () => {
    clock.set(new Date("2034-04-04T04:04:04.004Z"));
    const doomed = await t.createSpace();
    const tag = await t.call(T.createTag, { spaceId: doomed, name: uniqueName("doomed") });
    // Identity stamps the SpaceDeleted with its own time; the catalog's consumer takes its own.
    const cascadeAt = new Date("2035-05-05T05:05:05.005Z");
    clock.set(cascadeAt);
    await t.callIdentity(IdentityServiceService.deleteSpace, { id: doomed }, t.admin);

    const deletedAt = async () =>
      (
        await t.pool.query<{ deleted_at: string }>(
          `select data->>'deleted_at' as deleted_at from events
            where stream_id = $1 and event_type = 'TagDeleted'`,
          [`tag-${tag.id}`],
        )
      ).rows[0]?.deleted_at;
    const until = Date.now() + 15_000;
    let seen = await deletedAt();
    while (seen === undefined && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await deletedAt();
    }
    expect(seen).toBe(at(cascadeAt));
  });
});
