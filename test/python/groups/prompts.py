"""prompts through client.prompts: create, get (id, name, version, label), list (space, name),
update, versions (create, list, get), labels (set, resolve, delete), delete."""
from _common import Run, default_space, val

from arize._generated import api_client as gen

r = Run("prompts")
c = r.client
space = default_space(c)
name = r.name("py-prompt")
msgs = [gen.LLMMessageRequest(role="SYSTEM", content="You answer {topic} questions."),
        gen.LLMMessageRequest(role="USER", content="{question}")]


def messages(v):
    return [(val(m.role), m.content) for m in v.messages]


p = r.op("create", lambda: c.prompts.create(
    space=space.name, name=name, commit_message="first", description="written",
    input_variable_format="F_STRING", provider="OPEN_AI", model="gpt-4o", messages=msgs,
    invocation_params=gen.InvocationParamsRequest(temperature=0.25, max_tokens=64)))
if p:
    v1 = p.version
    r.eq("create", "fields", (p.name, p.description, p.space_id), (name, "written", space.id))
    r.eq("create", "version", (v1.commit_message, val(v1.input_variable_format), val(v1.provider),
                               v1.model), ("first", "F_STRING", "OPEN_AI", "gpt-4o"))
    r.eq("create", "messages", messages(v1), [("SYSTEM", "You answer {topic} questions."),
                                              ("USER", "{question}")])
    r.eq("create", "invocation_params",
         (v1.invocation_params.temperature, v1.invocation_params.max_tokens), (0.25, 64))
    got = r.op("get", lambda: c.prompts.get(prompt=p.id))
    if got:
        r.eq("get", "fields", (got.id, got.name, got.description), (p.id, name, "written"))
        r.eq("get", "version", got.version.id, v1.id)
    by_name = r.op("get_by_name", lambda: c.prompts.get(prompt=name, space=space.name))
    r.eq("get_by_name", "id", by_name and by_name.id, p.id)
    listed = r.op("list", lambda: c.prompts.list(space=space.id, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.prompts if x.id == p.id], [p.id])
    filtered = r.op("list_by_name", lambda: c.prompts.list(space=space.name, name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.prompts], [p.id])

    upd = r.op("update", lambda: c.prompts.update(prompt=name, space=space.id,
                                                  description="rewritten"))
    if upd:
        r.eq("update", "description", upd.description, "rewritten")
    got = r.op("get_after_update", lambda: c.prompts.get(prompt=p.id))
    if got:
        r.eq("get_after_update", "description", got.description, "rewritten")

    cleared = r.op("update_clear_description", lambda: c.prompts.update(prompt=p.id,
                                                                        description=None))
    if cleared:
        r.eq("update_clear_description", "description", cleared.description, None)
    c.prompts.update(prompt=p.id, description="rewritten")

    # Versions.
    v2 = r.op("create_version", lambda: c.prompts.create_version(
        prompt=name, space=space.name, commit_message="second",
        input_variable_format="MUSTACHE", provider="ANTHROPIC", model="claude-3-5-sonnet",
        messages=[gen.LLMMessageRequest(role="USER", content="{{question}}")]))
    if v2:
        r.eq("create_version", "fields",
             (v2.prompt_id, v2.commit_message, val(v2.input_variable_format), val(v2.provider),
              v2.model, messages(v2)),
             (p.id, "second", "MUSTACHE", "ANTHROPIC", "claude-3-5-sonnet",
              [("USER", "{{question}}")]))
        latest = r.op("get_latest", lambda: c.prompts.get(prompt=p.id))
        r.eq("get_latest", "version", latest and latest.version.id, v2.id)
        first = r.op("get_version_id", lambda: c.prompts.get(prompt=p.id, version_id=v1.id))
        r.eq("get_version_id", "version", first and first.version.id, v1.id)
        gv = r.op("get_version", lambda: c.prompts.get_version(version_id=v1.id))
        if gv:
            r.eq("get_version", "fields", (gv.id, gv.commit_message, messages(gv)),
                 (v1.id, "first", messages(v1)))
        versions = r.op("list_versions", lambda: c.prompts.list_versions(prompt=name,
                                                                         space=space.id))
        if versions:
            r.eq("list_versions", "ids", [x.id for x in versions.prompt_versions], [v2.id, v1.id])

        # Labels.
        labelled = r.op("set_labels", lambda: c.prompts.set_labels(
            version_id=v1.id, labels=["production", "staging"]))
        if labelled:
            r.eq("set_labels", "labels", sorted(labelled.labels or []), ["production", "staging"])
        by_label = r.op("get_version_by_label", lambda: c.prompts.get_version_by_label(
            prompt=name, space=space.name, label_name="production"))
        r.eq("get_version_by_label", "id", by_label and by_label.id, v1.id)
        via_get = r.op("get_label", lambda: c.prompts.get(prompt=p.id, label="staging"))
        r.eq("get_label", "version", via_get and via_get.version.id, v1.id)
        moved = r.op("set_labels_move", lambda: c.prompts.set_labels(
            version_id=v2.id, labels=["production"]))
        if moved:
            r.eq("set_labels_move", "labels", moved.labels, ["production"])
        by_label = r.op("get_version_by_label_moved", lambda: c.prompts.get_version_by_label(
            prompt=p.id, label_name="production"))
        r.eq("get_version_by_label_moved", "id", by_label and by_label.id, v2.id)
        r.op("delete_label", lambda: c.prompts.delete_label(version_id=v1.id, label_name="staging"))
        gv = r.op("get_version_after_delete_label", lambda: c.prompts.get_version(version_id=v1.id))
        if gv:
            r.eq("get_version_after_delete_label", "labels", gv.labels or [], [])

    # Every invocation and provider parameter, read back as written.
    inv = gen.InvocationParamsRequest(
        temperature=0.5, max_completion_tokens=256, top_p=0.9, frequency_penalty=0.1,
        presence_penalty=-0.2, stop=["END", "STOP"], top_k=5, reasoning_effort="low",
        verbosity="high",
        tool_config=gen.ToolConfigRequest(
            tools=[{"type": "function", "function": {
                "name": "lookup", "description": "Look a word up",
                "parameters": {"type": "object", "properties": {"word": {"type": "string"}},
                               "required": ["word"]}}}],
            tool_choice="auto"))
    prov = gen.ProviderParamsRequest(
        azure_params=gen.AzureParamsRequest(
            azure_deployment_name="gpt4o-prod", azure_openai_endpoint="https://x.openai.azure.com",
            azure_openai_version="2024-06-01"),
        region="eastus")
    v3 = r.op("create_version_params", lambda: c.prompts.create_version(
        prompt=p.id, commit_message="params", input_variable_format="NONE",
        provider="AZURE_OPEN_AI", model="gpt-4o", messages=msgs, invocation_params=inv,
        provider_params=prov))
    if v3:
        gv = r.op("get_version_params", lambda: c.prompts.get_version(version_id=v3.id))
        for op, v in [("create_version_params", v3), ("get_version_params", gv)]:
            if v:
                r.eq(op, "invocation_params", v.invocation_params.to_dict(), inv.to_dict())
                r.eq(op, "provider_params", v.provider_params.to_dict(), prov.to_dict())
                # NONE is deprecated and stored as what it means (documented on the schema).
                r.eq(op, "input_variable_format", val(v.input_variable_format), "F_STRING")

    r.op("delete", lambda: c.prompts.delete(prompt=name, space=space.name))
    after = r.op("list_after_delete", lambda: c.prompts.list(space=space.id, name=name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.prompts], [])
r.done()
