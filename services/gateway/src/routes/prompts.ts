import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import {
  PromptServiceService,
  type Prompt,
  type PromptVersion,
  type PromptVersionContent,
} from "@argus/proto/catalog/v1/prompts";
import type { Backend } from "../backend.ts";
import { type PathParam, pathId, spaceListQuery } from "./params.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

const userId = (id: string): string => (id ? encodeId("User", id) : "");

function toPublicPrompt(p: Prompt) {
  return {
    id: encodeId("Prompt", p.id),
    name: p.name,
    description: p.description ?? null,
    space_id: encodeId("Space", p.spaceId),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    created_by_user_id: userId(p.createdByUserId),
  };
}

function toPublicPromptVersion(v: PromptVersion) {
  const c = v.content!;
  return {
    id: encodeId("PromptVersion", v.id),
    prompt_id: encodeId("Prompt", v.promptId),
    commit_hash: v.commitHash,
    commit_message: c.commitMessage,
    messages: JSON.parse(c.messagesJson) as unknown[],
    input_variable_format: c.inputVariableFormat,
    provider: c.provider,
    model: c.model,
    ...(c.invocationParamsJson ? { invocation_params: JSON.parse(c.invocationParamsJson) } : {}),
    ...(c.providerParamsJson ? { provider_params: JSON.parse(c.providerParamsJson) } : {}),
    created_at: v.createdAt,
    created_by_user_id: userId(v.createdByUserId),
    labels: v.labels,
  };
}

function contentOf(b: components["schemas"]["PromptVersionCreateRequest"]): PromptVersionContent {
  return {
    commitMessage: b.commit_message,
    inputVariableFormat: b.input_variable_format ?? "F_STRING",
    provider: b.provider,
    model: b.model ?? "",
    messagesJson: JSON.stringify(b.messages),
    invocationParamsJson: b.invocation_params ? JSON.stringify(b.invocation_params) : "",
    providerParamsJson: b.provider_params ? JSON.stringify(b.provider_params) : "",
  };
}

const promptId = (req: PathParam<"prompt_id">): string => {
  const id = pathId("Prompt", req.params.prompt_id, "prompt");
  return id;
};

const versionId = (req: PathParam<"version_id">): string => {
  const id = pathId("PromptVersion", req.params.version_id, "prompt version");
  return id;
};

export function promptHandlers(catalog: Backend): ResourceHandlers<"prompts"> {
  const S = PromptServiceService;
  return {
    async list_prompts(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("prompts", []);
      const res = await catalog.call(S.listPrompts, query, req);
      return listPage("prompts", res.prompts.map(toPublicPrompt), res.page);
    },

    async create_prompt(req) {
      const body = req.body;
      const spaceId = pathId("Space", body.space_id, "space");
      const res = await catalog.call(
        S.createPrompt,
        {
          spaceId,
          name: body.name,
          ...(body.description === undefined ? {} : { description: body.description }),
          version: contentOf(body.version),
        },
        req,
      );
      return {
        status: 201,
        body: { ...toPublicPrompt(res.prompt!), version: toPublicPromptVersion(res.version!) },
      };
    },

    async get_prompt(req) {
      const id = promptId(req);
      const versionParam = req.query.version_id;
      const label = req.query.label ?? "";
      if (versionParam !== undefined && label !== "")
        throw new DomainError("invalid-request", "version_id and label are mutually exclusive");
      const vId = versionParam === undefined ? "" : decodeId("PromptVersion", versionParam);
      if (vId === null) throw notFound("prompt version");
      const res = await catalog.call(S.getPrompt, { id, versionId: vId, label }, req);
      return {
        status: 200,
        body: { ...toPublicPrompt(res.prompt!), version: toPublicPromptVersion(res.version!) },
      };
    },

    async update_prompt(req) {
      const body = req.body;
      const set = Object.hasOwn(body, "description");
      const res = await catalog.call(
        S.updatePrompt,
        {
          id: promptId(req),
          setDescription: set,
          ...(typeof body.description === "string" ? { description: body.description } : {}),
        },
        req,
      );
      return { status: 200, body: toPublicPrompt(res) };
    },

    delete_prompt: (req) => noContent(catalog.call(S.deletePrompt, { id: promptId(req) }, req)),

    async list_prompt_versions(req) {
      const res = await catalog.call(
        S.listPromptVersions,
        { page: req.page, promptId: promptId(req) },
        req,
      );
      return listPage("prompt_versions", res.versions.map(toPublicPromptVersion), res.page);
    },

    async create_prompt_version(req) {
      const res = await catalog.call(
        S.createPromptVersion,
        { promptId: promptId(req), content: contentOf(req.body) },
        req,
      );
      return { status: 201, body: toPublicPromptVersion(res) };
    },

    async get_prompt_version(req) {
      const res = await catalog.call(S.getPromptVersion, { id: versionId(req) }, req);
      return { status: 200, body: toPublicPromptVersion(res) };
    },

    async get_prompt_label(req) {
      const res = await catalog.call(
        S.getPromptLabel,
        { promptId: promptId(req), label: req.params.label_name ?? "" },
        req,
      );
      return { status: 200, body: toPublicPromptVersion(res) };
    },

    async set_prompt_version_label(req) {
      const body = req.body;
      const res = await catalog.call(
        S.setPromptVersionLabels,
        { versionId: versionId(req), labels: body.labels },
        req,
      );
      return { status: 200, body: toPublicPromptVersion(res) };
    },

    delete_prompt_version_label: (req) =>
      noContent(
        catalog.call(
          S.deletePromptVersionLabel,
          { versionId: versionId(req), label: req.params.label_name ?? "" },
          req,
        ),
      ),
  };
}
