import { beforeAll, describe, expect, it } from "vitest";
import { PromptServiceService as S } from "@argus/proto/catalog/v1/prompts";
import { startedForFile, uniqueName } from "@argus/testkit";
import { promptContent } from "./catalogInputs.ts";
import { problemOf, startCatalogStack, type CatalogStack } from "./promptsStack.ts";

const t = startedForFile(() => startCatalogStack());
let spaceId: string;

const content = promptContent;

const createPrompt = (name = uniqueName("prompt"), space = spaceId, principal = t.admin) =>
  t.call(S.createPrompt, { spaceId: space, name, version: content() }, principal);

beforeAll(async () => {
  spaceId = await t.createSpace();
}, 60_000);

describe("prompts", () => {
  it("creates a prompt with its initial version, readable by id, latest and label", async () => {
    const created = await createPrompt("greeter");
    expect(created.prompt).toMatchObject({ name: "greeter", spaceId });
    expect(created.prompt!.description).toBeUndefined();
    expect(created.version).toMatchObject({ promptId: created.prompt!.id, labels: [] });
    expect(JSON.parse(created.version!.content!.invocationParamsJson)).toEqual({
      temperature: 0.2,
    });
    const id = created.prompt!.id;

    const v2 = await t.call(S.createPromptVersion, {
      promptId: id,
      content: content({ commitMessage: "second", inputVariableFormat: "NONE" }),
    });
    expect(v2.content!.inputVariableFormat).toBe("F_STRING");
    expect((await t.call(S.getPrompt, { id, versionId: "", label: "" })).version!.id).toBe(v2.id);
    const first = await t.call(S.getPrompt, { id, versionId: created.version!.id, label: "" });
    expect(first.version!.content!.commitMessage).toBe("initial");

    const labelled = await t.call(S.setPromptVersionLabels, {
      versionId: created.version!.id,
      labels: ["production", "staging"],
    });
    expect(labelled.labels).toEqual(["production", "staging"]);
    const byLabel = await t.call(S.getPrompt, { id, versionId: "", label: "production" });
    expect(byLabel.version!.id).toBe(created.version!.id);
    expect((await t.call(S.getPromptLabel, { promptId: id, label: "staging" })).id).toBe(
      created.version!.id,
    );
    // Moving a label: it leaves the first version.
    await t.call(S.setPromptVersionLabels, { versionId: v2.id, labels: ["production"] });
    expect((await t.call(S.getPromptVersion, { id: created.version!.id })).labels).toEqual([
      "staging",
    ]);
    await t.call(S.deletePromptVersionLabel, { versionId: v2.id, label: "production" });
    expect(await problemOf(t.call(S.getPromptLabel, { promptId: id, label: "production" }))).toBe(
      "resource-not-found",
    );
    expect(
      await problemOf(
        t.call(S.deletePromptVersionLabel, { versionId: v2.id, label: "production" }),
      ),
    ).toBe("resource-not-found");

    const versions = await t.call(S.listPromptVersions, {
      promptId: id,
      page: { limit: 1, after: "" },
    });
    expect(versions.versions.map((v) => v.id)).toEqual([v2.id]);
    const rest = await t.call(S.listPromptVersions, {
      promptId: id,
      page: { limit: 1, after: versions.page!.nextAfter },
    });
    expect(rest.versions.map((v) => v.id)).toEqual([created.version!.id]);
    expect(rest.page!.nextAfter).toBe("");
  });

  it("publishes label and version events on JetStream under argus.catalog.prompt.*", async () => {
    const created = await createPrompt();
    await t.call(S.setPromptVersionLabels, { versionId: created.version!.id, labels: ["jet"] });
    const subject = `${t.root}.catalog.prompt.PromptLabelSet`;
    let got: Awaited<ReturnType<CatalogStack["lastStored"]>> | undefined;
    for (let i = 0; i < 50 && !got; i++) {
      got = await t.lastStored(subject).catch(() => undefined);
      if (!got || (got.data as { data: { label: string } }).data.label !== "jet") {
        got = undefined;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    expect(got?.subject).toBe(subject);
    expect(got?.data).toMatchObject({
      type: "PromptLabelSet",
      streamId: `prompt-${created.prompt!.id}`,
      data: { prompt_id: created.prompt!.id, version_id: created.version!.id, label: "jet" },
    });
    const version = await t.lastStored(`${t.root}.catalog.prompt.PromptVersionCreated`);
    expect(version.data).toMatchObject({ type: "PromptVersionCreated" });
  });

  it("names are unique per space (409), free again after delete", async () => {
    const name = uniqueName("dup");
    const created = await createPrompt(name);
    expect(await problemOf(createPrompt(name))).toBe("resource-conflict");
    const other = await t.createSpace();
    expect(await problemOf(createPrompt(name, other))).toBe("ok");
    await t.call(S.deletePrompt, { id: created.prompt!.id });
    expect(
      await problemOf(t.call(S.getPrompt, { id: created.prompt!.id, versionId: "", label: "" })),
    ).toBe("resource-not-found");
    expect(await problemOf(createPrompt(name))).toBe("ok");
  });

  it("a race of creates with one name yields one prompt and 409s, never a duplicate", async () => {
    const name = uniqueName("race");
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => problemOf(createPrompt(name))),
    );
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "resource-conflict")).toHaveLength(5);
  });

  it("concurrent label moves leave each label on exactly one version", async () => {
    const created = await createPrompt();
    const versions = [created.version!.id];
    for (let i = 0; i < 3; i++)
      versions.push(
        (await t.call(S.createPromptVersion, { promptId: created.prompt!.id, content: content() }))
          .id,
      );
    await Promise.all(
      versions.map((versionId) =>
        problemOf(t.call(S.setPromptVersionLabels, { versionId, labels: ["production"] })),
      ),
    );
    const holders = await Promise.all(
      versions.map(async (id) => (await t.call(S.getPromptVersion, { id })).labels),
    );
    expect(holders.flat()).toEqual(["production"]);
  });

  it("updates and clears the description", async () => {
    const id = (await createPrompt()).prompt!.id;
    const set = await t.call(S.updatePrompt, { id, setDescription: true, description: "d" });
    expect(set.description).toBe("d");
    const cleared = await t.call(S.updatePrompt, { id, setDescription: true });
    expect(cleared.description).toBeUndefined();
  });

  it("rejects invalid content: no messages, version_id with label", async () => {
    expect(
      await problemOf(
        t.call(S.createPrompt, {
          spaceId,
          name: uniqueName("p"),
          version: content({ messagesJson: "[]" }),
        }),
      ),
    ).toBe("invalid-request");
    const created = await createPrompt();
    expect(
      await problemOf(
        t.call(S.getPrompt, { id: created.prompt!.id, versionId: created.version!.id, label: "x" }),
      ),
    ).toBe("invalid-request");
  });

  it("lists most recently updated first, paging on (updated_at, id), with name, space and space_name filters", async () => {
    const spaceName = uniqueName("listing");
    const space = await t.createSpace(spaceName);
    const a = await createPrompt("alpha-one", space);
    const b = await createPrompt("beta-two", space);
    const list = (after = "", over: Partial<{ name: string; spaceName: string }> = {}) =>
      t.call(S.listPrompts, {
        spaceId: over.spaceName ? "" : space,
        spaceName: over.spaceName ?? "",
        name: over.name ?? "",
        page: { limit: 1, after },
      });
    const first = await list();
    expect(first.prompts.map((p) => p.id)).toEqual([b.prompt!.id]);
    const second = await list(first.page!.nextAfter);
    expect(second.prompts.map((p) => p.id)).toEqual([a.prompt!.id]);
    expect(second.page!.nextAfter).toBe("");
    // A new version updates the prompt: it moves to the front.
    await new Promise((r) => setTimeout(r, 5));
    await t.call(S.createPromptVersion, { promptId: a.prompt!.id, content: content() });
    expect((await list()).prompts.map((p) => p.id)).toEqual([a.prompt!.id]);
    expect((await list("", { name: "BETA" })).prompts.map((p) => p.id)).toEqual([b.prompt!.id]);
    const byName = await list("", { spaceName: spaceName.toUpperCase() });
    expect(byName.prompts).toHaveLength(1);
    expect(await problemOf(list("garbage"))).toBe("invalid-request");
  });

  it("authorization: without PROMPT_READ a prompt is 404; with read but no update 403; create needs PROMPT_CREATE", async () => {
    const created = await createPrompt();
    const id = created.prompt!.id;
    const none = t.member({});
    const reader = t.member({ [spaceId]: ["PROMPT_READ"] });
    const writer = t.member({ [spaceId]: ["PROMPT_READ", "PROMPT_CREATE", "PROMPT_UPDATE"] });
    expect(await problemOf(t.call(S.getPrompt, { id, versionId: "", label: "" }, none))).toBe(
      "resource-not-found",
    );
    expect(await problemOf(t.call(S.getPrompt, { id, versionId: "", label: "" }, reader))).toBe(
      "ok",
    );
    expect(
      await problemOf(t.call(S.createPromptVersion, { promptId: id, content: content() }, reader)),
    ).toBe("access-forbidden");
    expect(await problemOf(t.call(S.deletePrompt, { id }, writer))).toBe("access-forbidden");
    expect(await problemOf(createPrompt(uniqueName("p"), spaceId, reader))).toBe(
      "access-forbidden",
    );
    expect(await problemOf(createPrompt(uniqueName("p"), spaceId, writer))).toBe("ok");
    const listed = await t.call(
      S.listPrompts,
      { spaceId: "", spaceName: "", name: "", page: undefined },
      none,
    );
    expect(listed.prompts).toEqual([]);
    expect(
      await problemOf(
        t.call(S.listPrompts, { spaceId, spaceName: "", name: "", page: undefined }, none),
      ),
    ).toBe("access-forbidden");
  });
});
