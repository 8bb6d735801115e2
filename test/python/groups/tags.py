"""tags: SDK 8.61.0 has no high-level tags client, so the generated TagsApi and the resources'
tag operations are driven on the ArizeClient's own generated client (as a user reaches them):
create, update, delete; attach, list and detach on projects, prompts, evaluators and annotation
configs (annotation configs have no detach in the SDK)."""
from _common import Run, default_space, evaluator_integration, val

from arize._generated import api_client as gen

r = Run("tags")
c = r.client
space = default_space(c)
shared = c.projects._api.api_client
tags = gen.TagsApi(shared)

t = r.op("create", lambda: tags.create_tag(gen.CreateTagRequest(
    name=r.name("py-tag"), description="written", color="TEAL", space_id=space.id)))
other = r.op("create_second", lambda: tags.create_tag(gen.CreateTagRequest(
    name=r.name("py-tag-2"), space_id=space.id)))
if t and other:
    r.eq("create", "fields", (t.name, t.description, t.color, t.space_id),
         (r.name("py-tag"), "written", "TEAL", space.id))
    upd = r.op("update", lambda: tags.update_tag(t.id, gen.UpdateTagRequest(
        name=r.name("py-tag-renamed"), description="rewritten", color="CORAL")))
    if upd:
        r.eq("update", "fields", (upd.id, upd.name, upd.description, val(upd.color)),
             (t.id, r.name("py-tag-renamed"), "rewritten", "CORAL"))

    project = c.projects.create(name=r.name("py-tagged-project"), space=space.id)
    prompt = c.prompts.create(
        space=space.id, name=r.name("py-tagged-prompt"), commit_message="v1",
        input_variable_format="F_STRING", provider="OPEN_AI",
        messages=[gen.LLMMessageRequest(role="USER", content="{q}")])
    evaluator = c.evaluators.create_remote_evaluator(
        name=r.name("py-tagged-evaluator"), space=space.id,
        integration_id=evaluator_integration(c, r.name("py-tag-remote")),
        commit_message="r")
    config = c.annotation_configs.create_freeform(name=r.name("py-tagged-config"), space=space.id)
    kinds = [
        ("project", gen.ProjectsApi(shared), project.id),
        ("prompt", gen.PromptsApi(shared), prompt.id),
        ("evaluator", gen.EvaluatorsApi(shared), evaluator.id),
        ("annotation_config", gen.AnnotationConfigsApi(shared), config.id),
    ]
    for kind, api, rid in kinds:
        add = getattr(api, f"add_{kind}_tags")
        lst = getattr(api, f"list_{kind}_tags")
        added = r.op(f"add_{kind}_tags", lambda: add(rid, gen.AddTagsRequest(
            tag_ids=[t.id, other.id])))
        if added:
            r.eq(f"add_{kind}_tags", "ids", sorted(x.id for x in added.tags),
                 sorted([t.id, other.id]))
        listed = r.op(f"list_{kind}_tags", lambda: lst(rid))
        if listed:
            r.eq(f"list_{kind}_tags", "tags",
                 sorted((x.id, x.name, val(x.color)) for x in listed.tags),
                 sorted([(t.id, r.name("py-tag-renamed"), "CORAL"), (other.id, other.name,
                                                                       val(other.color))]))
        remove = getattr(api, f"remove_{kind}_tags", None)
        if remove is None:
            continue
        removed = r.op(f"remove_{kind}_tags", lambda: remove(rid, gen.RemoveTagsRequest(
            tag_ids=[other.id])))
        if removed:
            r.eq(f"remove_{kind}_tags", "result",
                 (removed.completed, removed.deleted, removed.not_deleted), (True, [other.id], []))
        listed = r.op(f"list_{kind}_tags_after_remove", lambda: lst(rid))
        if listed:
            r.eq(f"list_{kind}_tags_after_remove", "ids", [x.id for x in listed.tags], [t.id])

    r.op("delete", lambda: tags.delete_tag(other.id))
    listed = r.op("list_annotation_config_tags_after_delete",
                  lambda: gen.AnnotationConfigsApi(shared).list_annotation_config_tags(config.id))
    if listed:
        r.eq("list_annotation_config_tags_after_delete", "ids", [x.id for x in listed.tags],
             [t.id])
    r.op("delete_second", lambda: tags.delete_tag(t.id))
    listed = r.op("list_project_tags_after_delete",
                  lambda: gen.ProjectsApi(shared).list_project_tags(project.id))
    if listed:
        r.eq("list_project_tags_after_delete", "ids", [x.id for x in listed.tags], [])
r.done()
