import { beforeAll, describe, expect, it } from "vitest";
import {
  EvaluatorServiceService as S,
  type EvaluatorVersionContent,
} from "@argus/proto/catalog/v1/evaluators";
import { AiIntegrationServiceService as AI } from "@argus/proto/catalog/v1/ai_integrations";
import { EvaluatorDirectoryService as D } from "@argus/proto/catalog/v1/config_directory";
import { encodeId } from "@argus/platform";
import { startedForFile, uniqueName } from "@argus/testkit";
import { aiIntegrationConfig, codeEvaluatorContent } from "./catalogInputs.ts";
import { problemOf, startCatalogStack } from "./promptsStack.ts";

const t = startedForFile(() => startCatalogStack());
let spaceId: string;
/** Public id of an account-wide AI integration (usable in every space). */
let integrationId: string;

const template = (
  commitMessage = "initial",
  aiIntegrationId = integrationId,
): EvaluatorVersionContent => ({
  commitMessage,
  configKind: "TEMPLATE",
  configJson: JSON.stringify({
    name: "relevance",
    template: "Is {output} relevant to {input}?",
    include_explanations: false,
    use_function_calling_if_available: true,
    classification_choices: { relevant: 1, irrelevant: 0 },
    llm_config: {
      ai_integration_id: aiIntegrationId,
      model_name: "gpt-4o",
      invocation_parameters: {},
      provider_parameters: {},
    },
  }),
});

const integration = (scopings: { organizationId: string; spaceId: string }[]) =>
  t.call(AI.createAiIntegration, {
    config: aiIntegrationConfig({ scopings }),
  });

const createEvaluator = (name = uniqueName("eval"), principal = t.admin) =>
  t.call(S.createEvaluator, { spaceId, name, type: "TEMPLATE", version: template() }, principal);

beforeAll(async () => {
  spaceId = await t.createSpace();
  integrationId = encodeId("AiIntegration", (await integration([])).id);
}, 60_000);

describe("evaluators", () => {
  it("creates with an initial version; the latest version is the default", async () => {
    const created = await createEvaluator("relevance");
    expect(created.evaluator).toMatchObject({ name: "relevance", type: "TEMPLATE", spaceId });
    expect(JSON.parse(created.version!.content!.configJson)).toMatchObject({
      direction: "MAXIMIZE",
      data_granularity: "SPAN",
    });
    const id = created.evaluator!.id;
    const v2 = await t.call(S.createEvaluatorVersion, { evaluatorId: id, content: template("v2") });
    expect((await t.call(S.getEvaluator, { id, versionId: "" })).version!.id).toBe(v2.id);
    const first = await t.call(S.getEvaluator, { id, versionId: created.version!.id });
    expect(first.version!.content!.commitMessage).toBe("initial");
    expect((await t.call(S.getEvaluatorVersion, { id: v2.id })).evaluatorId).toBe(id);
    const page = await t.call(S.listEvaluatorVersions, {
      evaluatorId: id,
      page: { limit: 1, after: "" },
    });
    expect(page.versions.map((v) => v.id)).toEqual([v2.id]);
    expect(page.page!.nextAfter).not.toBe("");
  });

  it("publishes EvaluatorVersionCreated on JetStream", async () => {
    const created = await createEvaluator();
    const subject = `${t.root}.catalog.evaluator.EvaluatorVersionCreated`;
    let data: unknown;
    for (let i = 0; i < 50; i++) {
      const got = await t.lastStored(subject).catch(() => undefined);
      if ((got?.data as { data?: { id?: string } } | undefined)?.data?.id === created.version!.id) {
        data = got!.data;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(data).toMatchObject({
      type: "EvaluatorVersionCreated",
      data: { evaluator_id: created.evaluator!.id, evaluator_type: "TEMPLATE" },
    });
  });

  it("racing deletes of the last two versions: one deletes, the other is 409; the event is published", async () => {
    const created = await createEvaluator();
    const id = created.evaluator!.id;
    const v1 = created.version!.id;
    const v2 = (await t.call(S.createEvaluatorVersion, { evaluatorId: id, content: template() }))
      .id;
    const outcomes = await Promise.allSettled(
      [v1, v2].map((v) => t.call(S.deleteEvaluatorVersions, { evaluatorId: id, versionIds: [v] })),
    );
    const done = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    expect(done).toHaveLength(1);
    const failed = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(await problemOf(Promise.reject(failed.reason))).toBe("resource-conflict");
    const kept = done[0]!.deletedVersionIds[0] === v1 ? v2 : v1;
    expect((await t.call(S.getEvaluator, { id, versionId: "" })).version!.id).toBe(kept);
    const subject = `${t.root}.catalog.evaluator.EvaluatorVersionsDeleted`;
    let data: unknown;
    for (let i = 0; i < 50; i++) {
      const got = await t.lastStored(subject).catch(() => undefined);
      const d = (got?.data as { data?: { evaluator_id?: string } } | undefined)?.data;
      if (d?.evaluator_id === id) {
        data = got!.data;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(data).toMatchObject({
      type: "EvaluatorVersionsDeleted",
      data: { evaluator_id: id, version_ids: done[0]!.deletedVersionIds },
    });
  });

  it("a code config on a template evaluator is a 400; unknown type too", async () => {
    const id = (await createEvaluator()).evaluator!.id;
    expect(
      await problemOf(
        t.call(S.createEvaluatorVersion, {
          evaluatorId: id,
          content: codeEvaluatorContent("x"),
        }),
      ),
    ).toBe("invalid-request");
    expect(
      await problemOf(
        t.call(S.createEvaluator, {
          spaceId,
          name: uniqueName("e"),
          type: "REMOTE",
          version: template(),
        }),
      ),
    ).toBe("invalid-request");
  });

  it("names are unique in the space on create and rename (409)", async () => {
    const name = uniqueName("taken");
    await createEvaluator(name);
    expect(await problemOf(createEvaluator(name))).toBe("resource-conflict");
    const other = await createEvaluator();
    expect(
      await problemOf(
        t.call(S.updateEvaluator, { id: other.evaluator!.id, name, setDescription: false }),
      ),
    ).toBe("resource-conflict");
    const renamed = await t.call(S.updateEvaluator, {
      id: other.evaluator!.id,
      name: uniqueName("free"),
      setDescription: true,
      description: "why",
    });
    expect(renamed.description).toBe("why");
  });

  it("delete removes it and its versions", async () => {
    const created = await createEvaluator();
    await t.call(S.deleteEvaluator, { id: created.evaluator!.id });
    expect(await problemOf(t.call(S.getEvaluatorVersion, { id: created.version!.id }))).toBe(
      "resource-not-found",
    );
  });

  it("authorization follows EVALUATOR_* permissions", async () => {
    const id = (await createEvaluator()).evaluator!.id;
    const reader = t.member({ [spaceId]: ["EVALUATOR_READ"] });
    expect(await problemOf(t.call(S.getEvaluator, { id, versionId: "" }, t.member({})))).toBe(
      "resource-not-found",
    );
    expect(await problemOf(t.call(S.getEvaluator, { id, versionId: "" }, reader))).toBe("ok");
    expect(await problemOf(t.call(S.deleteEvaluator, { id }, reader))).toBe("access-forbidden");
    expect(await problemOf(createEvaluator(uniqueName("e"), reader))).toBe("access-forbidden");
    const list = await t.call(
      S.listEvaluators,
      { spaceId: "", spaceName: "", name: "", page: undefined },
      reader,
    );
    expect(list.evaluators.length).toBeGreaterThan(0);
  });

  it("llm_config.ai_integration_id must name an integration applying to the evaluator's space (422)", async () => {
    const org = t.organizationId;
    const other = await t.createSpace();
    const id = async (scopings: { organizationId: string; spaceId: string }[]) =>
      encodeId("AiIntegration", (await integration(scopings)).id);
    const create = (aiIntegrationId: string) =>
      problemOf(
        t.call(S.createEvaluator, {
          spaceId,
          name: uniqueName("e"),
          type: "TEMPLATE",
          version: template("initial", aiIntegrationId),
        }),
      );
    // Usable: account-wide, scoped to the space, to its organization (no space).
    expect(await create(integrationId)).toBe("ok");
    expect(await create(await id([{ organizationId: org, spaceId }]))).toBe("ok");
    expect(await create(await id([{ organizationId: org, spaceId: "" }]))).toBe("ok");
    // Not usable: scoped to another space only, unknown, not an AI integration id, garbage.
    const elsewhere = await id([{ organizationId: org, spaceId: other }]);
    expect(await create(elsewhere)).toBe("unprocessable-entity");
    expect(await create(encodeId("AiIntegration", "0190a0a0-0000-7000-8000-000000000000"))).toBe(
      "unprocessable-entity",
    );
    expect(await create(encodeId("Project", spaceId))).toBe("unprocessable-entity");
    expect(await create("not-an-id")).toBe("unprocessable-entity");

    // New versions are held to the same rule; a deleted integration is no longer usable.
    const evaluator = (await createEvaluator()).evaluator!.id;
    const version = (aiIntegrationId: string) =>
      problemOf(
        t.call(S.createEvaluatorVersion, {
          evaluatorId: evaluator,
          content: template("v", aiIntegrationId),
        }),
      );
    expect(await version(elsewhere)).toBe("unprocessable-entity");
    const doomed = await integration([{ organizationId: org, spaceId }]);
    expect(await version(encodeId("AiIntegration", doomed.id))).toBe("ok");
    await t.call(AI.deleteAiIntegration, { id: doomed.id });
    expect(await version(encodeId("AiIntegration", doomed.id))).toBe("unprocessable-entity");
  });
});

describe("EvaluatorDirectory, on the task runner's own behalf", () => {
  it("resolves the pinned version, else the latest, within the account and space only", async () => {
    const a = await createEvaluator();
    const b = await createEvaluator();
    const first = a.version!.id;
    const latest = (
      await t.call(S.createEvaluatorVersion, {
        evaluatorId: a.evaluator!.id,
        content: template("v2"),
      })
    ).id;
    const otherSpace = await t.createSpace();
    const resolve = (space: string, evaluators: { evaluatorId: string; versionId: string }[]) =>
      t.asService(
        D.resolveEvaluators,
        { accountId: t.admin.accountId, spaceId: space, evaluators },
        "task-runner",
      );
    const got = await resolve(spaceId, [
      { evaluatorId: a.evaluator!.id, versionId: "" },
      { evaluatorId: a.evaluator!.id, versionId: first },
      { evaluatorId: b.evaluator!.id, versionId: latest }, // a's version: not b's
      { evaluatorId: "not-a-uuid", versionId: "" },
    ]);
    expect(got.evaluators.map((e) => [e.evaluatorId, e.versionId, e.type])).toEqual([
      [a.evaluator!.id, latest, "TEMPLATE"],
      [a.evaluator!.id, first, "TEMPLATE"],
    ]);
    expect(JSON.parse(got.evaluators[0]!.configJson)).toMatchObject({ name: "relevance" });
    // Another space, another account: nothing.
    expect(
      (await resolve(otherSpace, [{ evaluatorId: a.evaluator!.id, versionId: "" }])).evaluators,
    ).toEqual([]);
    expect(
      (
        await t.asService(
          D.resolveEvaluators,
          {
            accountId: "00000000-0000-4000-8000-000000000000",
            spaceId,
            evaluators: [{ evaluatorId: a.evaluator!.id, versionId: "" }],
          },
          "task-runner",
        )
      ).evaluators,
    ).toEqual([]);
    // Served to the task runner alone.
    expect(
      await problemOf(
        t.asService(
          D.resolveEvaluators,
          { accountId: t.admin.accountId, spaceId, evaluators: [] },
          "dataset",
        ),
      ),
    ).toBe("access-forbidden");
    expect(
      await problemOf(
        t.call(D.resolveEvaluators, { accountId: t.admin.accountId, spaceId, evaluators: [] }),
      ),
    ).toBe("access-forbidden");
  });
});
