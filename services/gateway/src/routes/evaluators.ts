import { decodeId, encodeId, notFound } from "@argus/platform";
import {
  EvaluatorServiceService,
  type Evaluator,
  type EvaluatorVersion,
  type EvaluatorVersionContent,
} from "@argus/proto/catalog/v1/evaluators";
import type { Backend } from "../backend.ts";
import { pathId, spaceListQuery } from "./params.ts";
import type { ApiRequest, Handler } from "../http.ts";

type VersionBody = { commit_message: string } & (
  { template_config: Record<string, unknown> } | { code_config: Record<string, unknown> }
);

interface CreateEvaluatorBody {
  space_id: string;
  name: string;
  description?: string;
  type: string;
  version: VersionBody;
}

const userId = (id: string): string | null => (id ? encodeId("User", id) : null);

export function toPublicEvaluator(e: Evaluator) {
  return {
    id: encodeId("Evaluator", e.id),
    name: e.name,
    description: e.description ?? null,
    type: e.type,
    space_id: encodeId("Space", e.spaceId),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    created_by_user_id: userId(e.createdByUserId),
  };
}

export function toPublicEvaluatorVersion(v: EvaluatorVersion) {
  const c = v.content!;
  const config = JSON.parse(c.configJson) as Record<string, unknown>;
  return {
    id: encodeId("EvaluatorVersion", v.id),
    evaluator_id: encodeId("Evaluator", v.evaluatorId),
    commit_hash: v.commitHash,
    commit_message: c.commitMessage,
    created_at: v.createdAt,
    created_by_user_id: userId(v.createdByUserId),
    type: v.type,
    ...(v.type === "TEMPLATE" ? { template_config: config } : { code_config: config }),
  };
}

function contentOf(b: VersionBody): EvaluatorVersionContent {
  const template = "template_config" in b;
  return {
    commitMessage: b.commit_message,
    configKind: template ? "TEMPLATE" : "CODE",
    configJson: JSON.stringify(template ? b.template_config : b.code_config),
  };
}

const evaluatorId = (req: ApiRequest): string => {
  const id = pathId("Evaluator", req.params.evaluator_id, "evaluator");
  return id;
};

export function evaluatorHandlers(catalog: Backend): Record<string, Handler> {
  const S = EvaluatorServiceService;
  return {
    async list_evaluators(req) {
      const query = spaceListQuery(req);
      if (query === null) return { status: 200, body: { evaluators: [] }, nextAfter: "" };
      const res = await catalog.call(S.listEvaluators, query, req);
      return {
        status: 200,
        body: { evaluators: res.evaluators.map(toPublicEvaluator) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_evaluator(req) {
      const body = req.body as CreateEvaluatorBody;
      const spaceId = pathId("Space", body.space_id, "space");
      const res = await catalog.call(
        S.createEvaluator,
        {
          spaceId,
          name: body.name,
          ...(body.description === undefined ? {} : { description: body.description }),
          type: body.type,
          version: contentOf(body.version),
        },
        req,
      );
      return {
        status: 201,
        body: {
          ...toPublicEvaluator(res.evaluator!),
          version: toPublicEvaluatorVersion(res.version!),
        },
      };
    },

    async get_evaluator(req) {
      const id = evaluatorId(req);
      const versionParam = req.query.version_id as string | undefined;
      const versionId =
        versionParam === undefined ? "" : decodeId("EvaluatorVersion", versionParam);
      if (versionId === null) throw notFound("evaluator version");
      const res = await catalog.call(S.getEvaluator, { id, versionId }, req);
      return {
        status: 200,
        body: {
          ...toPublicEvaluator(res.evaluator!),
          version: toPublicEvaluatorVersion(res.version!),
        },
      };
    },

    async update_evaluator(req) {
      const body = req.body as { name?: string; description?: string | null };
      const res = await catalog.call(
        S.updateEvaluator,
        {
          id: evaluatorId(req),
          ...(body.name === undefined ? {} : { name: body.name }),
          setDescription: Object.hasOwn(body, "description"),
          ...(typeof body.description === "string" ? { description: body.description } : {}),
        },
        req,
      );
      return { status: 200, body: toPublicEvaluator(res) };
    },

    async delete_evaluator(req) {
      await catalog.call(S.deleteEvaluator, { id: evaluatorId(req) }, req);
      return { status: 204 };
    },

    async list_evaluator_versions(req) {
      const res = await catalog.call(
        S.listEvaluatorVersions,
        { page: req.page, evaluatorId: evaluatorId(req) },
        req,
      );
      return {
        status: 200,
        body: { evaluator_versions: res.versions.map(toPublicEvaluatorVersion) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_evaluator_version(req) {
      const res = await catalog.call(
        S.createEvaluatorVersion,
        { evaluatorId: evaluatorId(req), content: contentOf(req.body as VersionBody) },
        req,
      );
      return { status: 201, body: toPublicEvaluatorVersion(res) };
    },

    async get_evaluator_version(req) {
      const id = pathId("EvaluatorVersion", req.params.version_id, "evaluator version");
      const res = await catalog.call(S.getEvaluatorVersion, { id }, req);
      return { status: 200, body: toPublicEvaluatorVersion(res) };
    },
  };
}
