import { decodeId, encodeId, notFound } from "@argus/platform";
import {
  EvaluatorServiceService,
  type Evaluator,
  type EvaluatorVersion,
  type EvaluatorVersionContent,
} from "@argus/proto/catalog/v1/evaluators";
import type { Backend } from "../backend.ts";
import { type PathParam, pathId, spaceListQuery } from "./params.ts";
import { noContent, type Body, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

/** The field of a version that carries the config of an evaluator type. */
const CONFIG_FIELD = {
  TEMPLATE: "template_config",
  CODE: "code_config",
  REMOTE: "remote_config",
} as const;
type ConfigKind = keyof typeof CONFIG_FIELD;

/**
 * A template config as both clients read it: one function-calling setting under both names,
 * and `classification_choices` null for a freeform template (also for versions stored before).
 */
function publicTemplateConfig(c: Record<string, unknown>): Record<string, unknown> {
  const functionCalling = c.use_function_calling ?? c.use_function_calling_if_available ?? false;
  return {
    ...c,
    use_function_calling: functionCalling,
    use_function_calling_if_available: functionCalling,
    classification_choices: c.classification_choices ?? null,
  };
}

const userId = (id: string): string | null => (id ? encodeId("User", id) : null);

function toPublicEvaluator(e: Evaluator) {
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

function toPublicEvaluatorVersion(v: EvaluatorVersion) {
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
    ...(v.type === "TEMPLATE"
      ? { template_config: publicTemplateConfig(config) }
      : { [CONFIG_FIELD[v.type as ConfigKind] ?? "code_config"]: config }),
  };
}

function contentOf(b: Body<"create_evaluator_version">): EvaluatorVersionContent {
  // Each evaluator type's schema carries its own config field, and only that one.
  const [kind, config] =
    "template_config" in b
      ? (["TEMPLATE", b.template_config] as const)
      : "code_config" in b
        ? (["CODE", b.code_config] as const)
        : (["REMOTE", b.remote_config] as const);
  return {
    commitMessage: b.commit_message,
    configKind: kind,
    configJson: JSON.stringify(config),
  };
}

const evaluatorId = (req: PathParam<"evaluator_id">): string => {
  const id = pathId("Evaluator", req.params.evaluator_id, "evaluator");
  return id;
};

export function evaluatorHandlers(catalog: Backend): ResourceHandlers<"evaluators"> {
  const S = EvaluatorServiceService;
  return {
    async list_evaluators(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("evaluators", []);
      const res = await catalog.call(S.listEvaluators, query, req);
      return listPage("evaluators", res.evaluators.map(toPublicEvaluator), res.page);
    },

    async create_evaluator(req) {
      const body = req.body;
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
      const versionParam = req.query.version_id;
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
      const body = req.body;
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

    delete_evaluator: (req) =>
      noContent(catalog.call(S.deleteEvaluator, { id: evaluatorId(req) }, req)),

    async list_evaluator_versions(req) {
      const res = await catalog.call(
        S.listEvaluatorVersions,
        { page: req.page, evaluatorId: evaluatorId(req) },
        req,
      );
      return listPage("evaluator_versions", res.versions.map(toPublicEvaluatorVersion), res.page);
    },

    async create_evaluator_version(req) {
      const res = await catalog.call(
        S.createEvaluatorVersion,
        { evaluatorId: evaluatorId(req), content: contentOf(req.body) },
        req,
      );
      return { status: 201, body: toPublicEvaluatorVersion(res) };
    },

    async delete_evaluator_versions(req) {
      const id = evaluatorId(req);
      const given = req.body.version_ids;
      // Each version as the caller spelled it first; duplicates collapse on the uuid. An id
      // (well-formed: the schema checks that) that is not an evaluator version's travels as
      // given: it names no version of this evaluator, so it comes back as not deleted.
      const spelled = new Map<string, string>();
      for (const raw of given) {
        const sent = decodeId("EvaluatorVersion", raw) ?? raw;
        if (!spelled.has(sent)) spelled.set(sent, raw);
      }
      const res = await catalog.call(
        S.deleteEvaluatorVersions,
        { evaluatorId: id, versionIds: [...spelled.keys()] },
        req,
      );
      const publicId = (sent: string) => spelled.get(sent) ?? sent;
      return {
        status: 200,
        body: {
          completed: true,
          deleted_version_ids: res.deletedVersionIds.map(publicId),
          not_deleted_version_ids: res.notDeletedVersionIds.map(publicId),
        },
      };
    },

    async list_evaluator_templates(req) {
      const res = await catalog.call(S.listEvaluatorTemplates, {}, req);
      return {
        status: 200,
        body: {
          evaluator_templates: res.templates.map((t) => ({
            column_name: t.columnName,
            display_name: t.displayName,
            template: t.template,
            rails: t.rails,
            classification_choices: JSON.parse(t.classificationChoicesJson) as unknown,
            direction: t.direction,
            data_granularity: t.dataGranularity ?? null,
          })),
        },
      };
    },

    async get_evaluator_version(req) {
      const id = pathId("EvaluatorVersion", req.params.version_id, "evaluator version");
      const res = await catalog.call(S.getEvaluatorVersion, { id }, req);
      return { status: 200, body: toPublicEvaluatorVersion(res) };
    },
  };
}
