import { randomUUID } from "node:crypto";
import { secretBox } from "@argus/platform";
import { apiKeyBinding } from "../src/aiIntegrations/aiIntegrationRows.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { AiIntegrationServiceService as S } from "@argus/proto/catalog/v1/ai_integrations";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { startedForFile, uniqueName } from "@argus/testkit";
import { aiIntegrationConfig } from "./catalogInputs.ts";
import { problemOf, startCatalogStack } from "./promptsStack.ts";

const t = startedForFile(() => startCatalogStack());
let spaceId: string;
const KEY = "sk-live-0123456789abcdefghij-LAST";
const NO_MERGE = { providerMetadataMergeJson: "", requireModelSource: false };

const config = aiIntegrationConfig;

beforeAll(async () => {
  spaceId = await t.createSpace();
}, 60_000);

describe("AI integrations", () => {
  it("stores the key apart from the events; replies and events carry only a hint", async () => {
    const created = await t.call(S.createAiIntegration, { config: config(), apiKey: KEY });
    expect(created).toMatchObject({ hasApiKey: true, apiKeyHint: "…LAST" });
    expect(JSON.stringify(created)).not.toContain("0123456789");
    const secret = await t.pool.query(
      "select api_key from ai_integration_secrets where integration_id = $1",
      [created.id],
    );
    // Sealed at rest (ARGUS_SECRETS_KEY): nothing of the key in the row, and it opens only
    // as this integration's.
    const stored = secret.rows[0]!.api_key as string;
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain("0123456789");
    const box = secretBox("s".repeat(32));
    expect(box.open(stored, apiKeyBinding(created.id))).toBe(KEY);
    expect(() => box.open(stored, apiKeyBinding(randomUUID()))).toThrow();
    const events = await t.pool.query(
      "select data::text, metadata::text from events where stream_id = $1",
      [`ai_integration-${created.id}`],
    );
    expect(events.rowCount).toBe(1);
    expect(JSON.stringify(events.rows)).not.toContain("0123456789");

    const rotated = await t.call(S.updateAiIntegration, {
      id: created.id,
      fields: ["api_key"],
      config: config(),
      apiKey: "sk-rotated-key-9999",
      ...NO_MERGE,
    });
    expect(rotated.apiKeyHint).toBe("…9999");
    const removed = await t.call(S.updateAiIntegration, {
      id: created.id,
      fields: ["api_key"],
      config: config(),
      ...NO_MERGE,
    });
    expect(removed).toMatchObject({ hasApiKey: false, apiKeyHint: "" });
    const gone = await t.pool.query(
      "select 1 from ai_integration_secrets where integration_id = $1",
      [created.id],
    );
    expect(gone.rowCount).toBe(0);
  });

  it("members see integrations of spaces where they hold AI_PROVIDER_READ, change them with LLM_INTEGRATION_*", async () => {
    const other = await t.createSpace();
    const scoped = await t.call(S.createAiIntegration, {
      config: config({ scopings: [{ organizationId: "", spaceId }] }),
    });
    const wide = await t.call(S.createAiIntegration, { config: config() });
    const reader = t.member({ [spaceId]: ["AI_PROVIDER_READ"] });
    const outsider = t.member({ [other]: ["AI_PROVIDER_READ"] });
    const editor = t.member({ [spaceId]: ["AI_PROVIDER_READ", "LLM_INTEGRATION_UPDATE"] });
    expect(await problemOf(t.call(S.getAiIntegration, { id: scoped.id }, reader))).toBe("ok");
    expect(await problemOf(t.call(S.getAiIntegration, { id: scoped.id }, outsider))).toBe(
      "resource-not-found",
    );
    expect(await problemOf(t.call(S.getAiIntegration, { id: wide.id }, outsider))).toBe("ok");
    expect(await problemOf(t.call(S.getAiIntegration, { id: wide.id }, t.member({})))).toBe(
      "resource-not-found",
    );
    const rename = (id: string, principal = editor) =>
      t.call(
        S.updateAiIntegration,
        { id, fields: ["name"], config: config(), ...NO_MERGE },
        principal,
      );
    expect(await problemOf(rename(scoped.id, reader))).toBe("access-forbidden");
    expect(await problemOf(rename(scoped.id))).toBe("ok");
    // Account-wide integrations are the account admins' to change.
    expect(await problemOf(rename(wide.id))).toBe("access-forbidden");
    expect(await problemOf(t.call(S.createAiIntegration, { config: config() }, editor))).toBe(
      "access-forbidden",
    );
  });

  it("names are unique within the account (409)", async () => {
    const name = uniqueName("same");
    await t.call(S.createAiIntegration, { config: config({ name }) });
    expect(await problemOf(t.call(S.createAiIntegration, { config: config({ name }) }))).toBe(
      "resource-conflict",
    );
  });

  it("a scoping's space is of the organization it names (422 otherwise)", async () => {
    const other = await t.callIdentity(
      IdentityServiceService.createOrganization,
      { name: uniqueName("org"), description: "" },
      t.admin,
    );
    const scoped = (organizationId: string) =>
      problemOf(
        t.call(S.createAiIntegration, {
          config: config({ scopings: [{ organizationId, spaceId }] }),
        }),
      );
    expect(await scoped(t.organizationId)).toBe("ok");
    expect(await scoped(other.id)).toBe("unprocessable-entity");
    expect(await scoped("")).toBe("ok");
  });
});
