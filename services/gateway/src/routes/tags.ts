import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import { TagServiceService, type Tag } from "@argus/proto/catalog/v1/tags";
import type { Backend } from "../backend.ts";
import { pathId, spaceListQuery } from "./params.ts";
import type { Handler } from "../http/handler.ts";

export function toPublicTag(t: Tag) {
  return {
    id: encodeId("Tag", t.id),
    name: t.name,
    description: t.description ?? null,
    color: t.color ?? null,
    space_id: encodeId("Space", t.spaceId),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}

/**
 * The resources whose tags are listed, attached and detached under `/v2/<plural>/{<param>}/tags`:
 * operationIds `list_<type>_tags`, `add_<type>_tags`, `remove_<type>_tags`.
 */
const TAGGED = [
  { type: "project", param: "project_id", idType: "Project" },
  { type: "dataset", param: "dataset_id", idType: "Dataset" },
  { type: "prompt", param: "prompt_id", idType: "Prompt" },
  { type: "evaluator", param: "evaluator_id", idType: "Evaluator" },
  { type: "experiment", param: "experiment_id", idType: "Experiment" },
  { type: "annotation_queue", param: "annotation_queue_id", idType: "AnnotationQueue" },
  // The public API lists and attaches an annotation config's tags; it has no detach.
  {
    type: "annotation_config",
    param: "annotation_config_id",
    idType: "AnnotationConfig",
    listAndAttachOnly: true,
  },
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The Tag list response has no paging yet; the field is there so adding it changes no shape.
const NOT_PAGINATED = { has_more: false };

export function tagHandlers(catalog: Backend): Record<string, Handler> {
  const tagId = (raw: string | undefined): string => {
    const id = pathId("Tag", raw, "tag");
    return id;
  };

  const handlers: Record<string, Handler> = {
    async list_tags(req) {
      const query = spaceListQuery(req);
      if (query === null) return { status: 200, body: { tags: [] }, nextAfter: "" };
      const res = await catalog.call(TagServiceService.listTags, query, req);
      return {
        status: 200,
        body: { tags: res.tags.map(toPublicTag) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_tag(req) {
      const body = req.body as {
        name: string;
        space_id: string;
        description?: string | null;
        color?: string | null;
      };
      const spaceId = decodeId("Space", body.space_id);
      if (spaceId === null) throw new DomainError("invalid-request", "space_id is not a space id");
      const tag = await catalog.call(
        TagServiceService.createTag,
        {
          spaceId,
          name: body.name,
          ...(body.description == null ? {} : { description: body.description }),
          ...(body.color == null ? {} : { color: body.color }),
        },
        req,
      );
      return { status: 201, body: toPublicTag(tag) };
    },

    async get_tag(req) {
      const tag = await catalog.call(
        TagServiceService.getTag,
        { id: tagId(req.params.tag_id) },
        req,
      );
      return { status: 200, body: toPublicTag(tag) };
    },

    async update_tag(req) {
      const body = req.body as {
        name?: string;
        description?: string | null;
        color?: string | null;
      };
      const tag = await catalog.call(
        TagServiceService.updateTag,
        {
          id: tagId(req.params.tag_id),
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(typeof body.description === "string" ? { description: body.description } : {}),
          clearDescription: body.description === null,
          ...(typeof body.color === "string" ? { color: body.color } : {}),
          clearColor: body.color === null,
        },
        req,
      );
      return { status: 200, body: toPublicTag(tag) };
    },

    async delete_tag(req) {
      await catalog.call(TagServiceService.deleteTag, { id: tagId(req.params.tag_id) }, req);
      return { status: 204 };
    },
  };

  for (const r of TAGGED) {
    const resourceId = (raw: string | undefined): string => {
      const id = decodeId(r.idType, raw ?? "");
      if (id === null) throw notFound(r.type.replace("_", " "));
      return id;
    };
    handlers[`list_${r.type}_tags`] = async (req) => {
      const res = await catalog.call(
        TagServiceService.listResourceTags,
        { resourceType: r.type, resourceId: resourceId(req.params[r.param]) },
        req,
      );
      return { status: 200, body: { tags: res.tags.map(toPublicTag), pagination: NOT_PAGINATED } };
    };
    handlers[`add_${r.type}_tags`] = async (req) => {
      const target = resourceId(req.params[r.param]);
      const given = (req.body as { tag_ids: string[] }).tag_ids;
      // An id that is not a tag id names no tag: the service reports it as unknown (422).
      const tagIds = given.map((id) => decodeId("Tag", id) ?? "");
      const res = await catalog.call(
        TagServiceService.attachTags,
        { resourceType: r.type, resourceId: target, tagIds },
        req,
      );
      return { status: 200, body: { tags: res.tags.map(toPublicTag), pagination: NOT_PAGINATED } };
    };
    if ("listAndAttachOnly" in r) continue;
    handlers[`remove_${r.type}_tags`] = async (req) => {
      const target = resourceId(req.params[r.param]);
      const given = (req.body as { tag_ids: string[] }).tag_ids;
      // Ids that are not tag ids travel as given: never attached, they come back in not_found.
      const res = await catalog.call(
        TagServiceService.detachTags,
        {
          resourceType: r.type,
          resourceId: target,
          tagIds: given.map((id) => decodeId("Tag", id) ?? id),
        },
        req,
      );
      const toPublic = (id: string) => (UUID.test(id) ? encodeId("Tag", id) : id);
      const detached = res.detached.map(toPublic);
      const notFound = res.notFound.map(toPublic);
      // Both spellings: the TypeScript client reads detached/not_found, the Python SDK
      // completed/deleted/not_deleted.
      return {
        status: 200,
        body: {
          detached,
          not_found: notFound,
          completed: notFound.length === 0,
          deleted: detached,
          not_deleted: notFound,
        },
      };
    };
  }
  return handlers;
}
