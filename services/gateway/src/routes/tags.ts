import { decodeId, DomainError, encodeId, isUuid, notFound } from "@argus/platform";
import { TagServiceService, type Tag } from "@argus/proto/catalog/v1/tags";
import type { Backend, Caller } from "../backend.ts";
import { type PathParam, pathId, spaceListQuery } from "./params.ts";
import { noContent, type ApiResponse, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

function toPublicTag(t: Tag) {
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

// The Tag list response has no paging yet; the field is there so adding it changes no shape.
const NOT_PAGINATED = { has_more: false };

export function tagHandlers(catalog: Backend): ResourceHandlers<"tags"> {
  const tagId = (raw: string | undefined): string => {
    const id = pathId("Tag", raw, "tag");
    return id;
  };

  const project = resourceTags(catalog, "project", "Project");
  const dataset = resourceTags(catalog, "dataset", "Dataset");
  const prompt = resourceTags(catalog, "prompt", "Prompt");
  const evaluator = resourceTags(catalog, "evaluator", "Evaluator");
  const experiment = resourceTags(catalog, "experiment", "Experiment");
  const queue = resourceTags(catalog, "annotation_queue", "AnnotationQueue");
  const config = resourceTags(catalog, "annotation_config", "AnnotationConfig");
  // The tracing service's monitors: the catalog asks it where one lives, as the caller.
  const monitor = resourceTags(catalog, "monitor", "Monitor");

  return {
    async list_tags(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("tags", []);
      const res = await catalog.call(TagServiceService.listTags, query, req);
      return listPage("tags", res.tags.map(toPublicTag), res.page);
    },

    async create_tag(req) {
      const body = req.body;
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
      const body = req.body;
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

    delete_tag: (req) =>
      noContent(catalog.call(TagServiceService.deleteTag, { id: tagId(req.params.tag_id) }, req)),

    list_project_tags: project.list,
    add_project_tags: project.add,
    remove_project_tags: project.remove,
    list_dataset_tags: dataset.list,
    add_dataset_tags: dataset.add,
    remove_dataset_tags: dataset.remove,
    list_prompt_tags: prompt.list,
    add_prompt_tags: prompt.add,
    remove_prompt_tags: prompt.remove,
    list_evaluator_tags: evaluator.list,
    add_evaluator_tags: evaluator.add,
    remove_evaluator_tags: evaluator.remove,
    list_experiment_tags: experiment.list,
    add_experiment_tags: experiment.add,
    remove_experiment_tags: experiment.remove,
    list_annotation_queue_tags: queue.list,
    add_annotation_queue_tags: queue.add,
    remove_annotation_queue_tags: queue.remove,
    // The public API lists and attaches an annotation config's tags; it has no detach.
    list_annotation_config_tags: config.list,
    add_annotation_config_tags: config.add,
    list_monitor_tags: monitor.list,
    add_monitor_tags: monitor.add,
    remove_monitor_tags: monitor.remove,
  };
}

/** The body of an attach or detach: the tag ids. */
interface TagIds {
  body: { tag_ids: string[] };
}

/**
 * The tags of one resource type, under `/v2/<plural>/{<type>_id}/tags`: operationIds
 * `list_<type>_tags`, `add_<type>_tags`, `remove_<type>_tags`.
 */
function resourceTags<T extends string>(catalog: Backend, type: T, idType: string) {
  type Target = Caller & PathParam<`${T}_id`>;
  const resourceId = (req: Target): string => {
    const id = decodeId(idType, req.params[`${type}_id`]);
    if (id === null) throw notFound(type.replace("_", " "));
    return id;
  };
  return {
    async list(req: Target): Promise<ApiResponse> {
      const res = await catalog.call(
        TagServiceService.listResourceTags,
        { resourceType: type, resourceId: resourceId(req) },
        req,
      );
      return { status: 200, body: { tags: res.tags.map(toPublicTag), pagination: NOT_PAGINATED } };
    },

    async add(req: Target & TagIds): Promise<ApiResponse> {
      const target = resourceId(req);
      // An id that is not a tag id names no tag: the service reports it as unknown (422).
      const tagIds = req.body.tag_ids.map((id) => decodeId("Tag", id) ?? "");
      const res = await catalog.call(
        TagServiceService.attachTags,
        { resourceType: type, resourceId: target, tagIds },
        req,
      );
      return { status: 200, body: { tags: res.tags.map(toPublicTag), pagination: NOT_PAGINATED } };
    },

    async remove(req: Target & TagIds): Promise<ApiResponse> {
      const target = resourceId(req);
      // Ids that are not tag ids travel as given: never attached, they come back in not_found.
      const res = await catalog.call(
        TagServiceService.detachTags,
        {
          resourceType: type,
          resourceId: target,
          tagIds: req.body.tag_ids.map((id) => decodeId("Tag", id) ?? id),
        },
        req,
      );
      const toPublic = (id: string) => (isUuid(id) ? encodeId("Tag", id) : id);
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
    },
  };
}
