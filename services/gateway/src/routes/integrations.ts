import {
  DomainError,
  clampLimit,
  decodeId,
  encodeId,
  holdsAnywhere,
  notFound,
} from "@argus/platform";
import {
  AiIntegrationServiceService as AI,
  type AiIntegration,
  type AiIntegrationScoping,
} from "@argus/proto/catalog/v1/ai_integrations";
import {
  IntegrationServiceService as S,
  type Integration,
  type IntegrationInput,
} from "@argus/proto/catalog/v1/integrations";
import type { Backend, Caller } from "../backend.ts";
import type { AnyOf, Body, ResourceHandlers } from "../http/handler.ts";
import { publicScopings, scopingOf } from "./aiIntegrations.ts";
import {
  createLlm,
  isLlmProvider,
  LLM_PROVIDERS,
  toLlmIntegration,
  updateLlm,
} from "./llmIntegrations.ts";
import { type PathParam, spaceListQuery } from "./params.ts";
import { listPage } from "./listPage.ts";

type IntegrationBody = Body<"create_integration"> | Body<"update_integration">;
/** An AGENT or EVALUATOR integration's body, created or updated. */
type RemoteBody = Exclude<IntegrationBody, { type: "LLM" }>;

function toPublicRemote(i: Integration) {
  return {
    id: encodeId("Integration", i.id),
    type: i.type,
    name: i.name,
    description: i.description ?? null,
    scopings: publicScopings(i.scopings),
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    created_by_user_id: i.createdByUserId ? encodeId("User", i.createdByUserId) : null,
    config: {
      endpoint: i.endpoint,
      has_headers: i.hasHeaders,
      input_schema: JSON.parse(i.inputSchemaJson) as unknown,
      ...(i.type === "AGENT"
        ? {
            request_presets: i.requestPresets.map((p) => ({
              id: p.id,
              name: p.name,
              description: p.description ?? null,
              config: JSON.parse(p.configJson) as unknown,
              created_at: p.createdAt,
              updated_at: p.updatedAt,
            })),
          }
        : {}),
    },
  };
}

/** The body as the service's input (only the sent fields are read on update). */
function remoteInputOf(b: RemoteBody): IntegrationInput {
  const c: AnyOf<NonNullable<RemoteBody["config"]>> = b.config ?? {};
  return {
    type: b.type,
    name: b.name ?? "",
    ...(typeof b.description === "string" ? { description: b.description } : {}),
    endpoint: c.endpoint ?? "",
    inputSchemaJson: c.input_schema ? JSON.stringify(c.input_schema) : "",
    ...(c.headers ? { headersJson: JSON.stringify(c.headers) } : {}),
    requestPresets: (c.request_presets ?? []).map((p) => ({
      name: p.name,
      ...(typeof p.description === "string" ? { description: p.description } : {}),
      configJson: JSON.stringify(p.config),
    })),
    scopings: (b.scopings ?? []).map(scopingOf),
  };
}

/** The fields a PATCH sent, by the service's names. */
function sentFields(b: RemoteBody): string[] {
  const top = ["name", "description", "scopings"].filter((k) => k in b);
  return [...top, ...Object.keys(b.config ?? {})];
}

/** An id names an LLM (AI) integration or an AGENT/EVALUATOR one; anything else is a 404. */
function idOf(req: PathParam<"integration_id">): { llm: string } | { remote: string } {
  const raw = req.params.integration_id ?? "";
  const llm = decodeId("AiIntegration", raw);
  if (llm) return { llm };
  const remote = decodeId("Integration", raw);
  if (remote) return { remote };
  throw notFound("integration");
}

/** An AI integration of a provider the public LLM integration does not name is not one here. */
function asLlm(a: AiIntegration): AiIntegration {
  if (!isLlmProvider(a.config!.provider)) throw notFound("integration");
  return a;
}

const typeMismatch = (actual: string) =>
  new DomainError(
    "unprocessable-entity",
    `the integration's type is ${actual}; type cannot change (delete and create instead)`,
  );

const newestFirst = (a: { id: string }, b: { id: string }) =>
  a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

export function integrationHandlers(catalog: Backend): ResourceHandlers<"integrations"> {
  const llmPage = (req: Caller, query: NonNullable<ReturnType<typeof spaceListQuery>>) =>
    catalog.call(AI.listAiIntegrations, { ...query, providers: [...LLM_PROVIDERS] }, req);
  const remotePage = (
    req: Caller,
    query: NonNullable<ReturnType<typeof spaceListQuery>>,
    type: string,
  ) => catalog.call(S.listIntegrations, { ...query, type }, req);

  return {
    /**
     * One type: that list. No type: LLM and AGENT, merged newest first. Ids are time-ordered
     * (uuid v7) in both stores, so one keyset (the last id shown) pages both.
     */
    async list_integrations(req) {
      // As the public API: only the types the caller may read somewhere; none is a 403.
      const type = req.query.type;
      const readsLlm = holdsAnywhere(req.principal, "AI_PROVIDER_READ");
      const readsRemote = holdsAnywhere(req.principal, "REMOTE_ENDPOINT_INTEGRATION_READ");
      const wantsLlm = (type === undefined || type === "LLM") && readsLlm;
      const wantsRemote = (type === undefined || type !== "LLM") && readsRemote;
      if (!wantsLlm && !wantsRemote)
        throw new DomainError(
          "access-forbidden",
          `listing ${type ?? "LLM or AGENT"} integrations needs ${type === undefined || type === "LLM" ? "AI_PROVIDER_READ" : "REMOTE_ENDPOINT_INTEGRATION_READ"} somewhere`,
        );
      const query = spaceListQuery(req);
      if (query === null) return listPage("integrations", []);
      const llm = wantsLlm
        ? await llmPage(req, query)
        : { aiIntegrations: [], page: { nextAfter: "" } };
      const remote = wantsRemote
        ? await remotePage(req, query, type ?? "AGENT")
        : { integrations: [], page: { nextAfter: "" } };
      const items = [
        ...llm.aiIntegrations.map((a) => ({ id: a.id, body: toLlmIntegration(a) })),
        ...remote.integrations.map((i) => ({ id: i.id, body: toPublicRemote(i) })),
      ].sort(newestFirst);
      const limit = clampLimit(req.page.limit);
      const shown = items.slice(0, limit);
      const more = items.length > limit || !!llm.page?.nextAfter || !!remote.page?.nextAfter;
      return {
        status: 200,
        body: { integrations: shown.map((i) => i.body) },
        nextAfter: more && shown.length > 0 ? shown[shown.length - 1]!.id : "",
      };
    },

    async create_integration(req) {
      const b = req.body;
      if (b.type === "LLM") {
        const scopings: AiIntegrationScoping[] = (b.scopings ?? []).map(scopingOf);
        const { config, apiKey } = createLlm(b.name, scopings, b.config);
        const res = await catalog.call(
          AI.createAiIntegration,
          { config, ...(apiKey === null ? {} : { apiKey }) },
          req,
        );
        return { status: 201, body: toLlmIntegration(res) };
      }
      const res = await catalog.call(S.createIntegration, { input: remoteInputOf(b) }, req);
      return { status: 201, body: toPublicRemote(res) };
    },

    async get_integration(req) {
      const id = idOf(req);
      if ("llm" in id)
        return {
          status: 200,
          body: toLlmIntegration(
            asLlm(await catalog.call(AI.getAiIntegration, { id: id.llm }, req)),
          ),
        };
      const res = await catalog.call(S.getIntegration, { id: id.remote }, req);
      return { status: 200, body: toPublicRemote(res) };
    },

    async update_integration(req) {
      const b = req.body;
      const id = idOf(req);
      if ("llm" in id) {
        const current = asLlm(await catalog.call(AI.getAiIntegration, { id: id.llm }, req));
        if (b.type !== "LLM") throw typeMismatch("LLM");
        const { fields, config, apiKey, metadataMerge, requireModelSource } = updateLlm(current, {
          ...(b.name === undefined ? {} : { name: b.name }),
          ...(b.scopings === undefined ? {} : { scopings: b.scopings.map(scopingOf) }),
          ...(b.config === undefined ? {} : { config: b.config }),
        });
        const res = await catalog.call(
          AI.updateAiIntegration,
          {
            id: id.llm,
            fields,
            config,
            ...(typeof apiKey === "string" ? { apiKey } : {}),
            providerMetadataMergeJson: metadataMerge ? JSON.stringify(metadataMerge) : "",
            requireModelSource,
          },
          req,
        );
        return { status: 200, body: toLlmIntegration(res) };
      }
      if (b.type === "LLM") {
        const current = await catalog.call(S.getIntegration, { id: id.remote }, req);
        throw typeMismatch(current.type);
      }
      const fields = sentFields(b);
      if (fields.length === 0)
        throw new DomainError(
          "invalid-request",
          "at least one field besides type must be provided",
        );
      const res = await catalog.call(
        S.updateIntegration,
        { id: id.remote, fields, input: remoteInputOf(b) },
        req,
      );
      return { status: 200, body: toPublicRemote(res) };
    },

    async delete_integration(req) {
      const id = idOf(req);
      if ("llm" in id) {
        asLlm(await catalog.call(AI.getAiIntegration, { id: id.llm }, req));
        await catalog.call(AI.deleteAiIntegration, { id: id.llm }, req);
      } else await catalog.call(S.deleteIntegration, { id: id.remote }, req);
      return { status: 204 };
    },
  };
}
