"""evaluators through client.evaluators: create (template, code, remote), get (id, name,
version), list (space, name), update, versions (create each kind, list, get, delete), delete."""
from _common import Run, default_space, evaluator_integration, val

from arize._generated import api_client as gen

r = Run("evaluators")
c = r.client
space = default_space(c)
integration = c.ai_integrations.create(name=r.name("py-eval-llm"), provider="OPEN_AI",
                                       api_key="sk-test")
name = r.name("py-evaluator")


def template(column: str, text: str) -> gen.TemplateConfigInput:
    return gen.TemplateConfigInput(
        name=column, template=text, include_explanations=True, use_function_calling=False,
        classification_choices={"relevant": 1, "irrelevant": 0},
        llm_config=gen.EvaluatorLlmConfigRequest(
            ai_integration_id=integration.id, model_name="gpt-4o",
            invocation_parameters=gen.InvocationParamsRequest(temperature=0.0),
            provider_parameters=gen.ProviderParamsRequest()))


def tc(version):
    t = version.template_config
    return (t.name, t.template, t.include_explanations, t.classification_choices,
            t.llm_config.ai_integration_id, t.llm_config.model_name)


e = r.op("create_template_evaluator", lambda: c.evaluators.create_template_evaluator(
    name=name, space=space.name, commit_message="v1", description="written",
    template_config=template("py_relevance", "Is {output} relevant to {input}?")))
if e:
    v1 = e.version
    r.eq("create_template_evaluator", "fields",
         (e.name, e.description, val(e.type), e.space_id), (name, "written", "TEMPLATE", space.id))
    r.eq("create_template_evaluator", "template_config", tc(v1),
         ("py_relevance", "Is {output} relevant to {input}?", True,
          {"relevant": 1, "irrelevant": 0}, integration.id, "gpt-4o"))
    got = r.op("get", lambda: c.evaluators.get(evaluator=e.id))
    if got:
        r.eq("get", "fields", (got.id, got.name, got.description, got.version.id),
             (e.id, name, "written", v1.id))
    by_name = r.op("get_by_name", lambda: c.evaluators.get(evaluator=name, space=space.name))
    r.eq("get_by_name", "id", by_name and by_name.id, e.id)
    listed = r.op("list", lambda: c.evaluators.list(space=space.id, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.evaluators if x.id == e.id], [e.id])
    filtered = r.op("list_by_name", lambda: c.evaluators.list(space=space.name, name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.evaluators], [e.id])

    new_name = r.name("py-evaluator-renamed")
    upd = r.op("update", lambda: c.evaluators.update(evaluator=name, space=space.id,
                                                     name=new_name, description="rewritten"))
    if upd:
        r.eq("update", "fields", (upd.id, upd.name, upd.description), (e.id, new_name, "rewritten"))
    got = r.op("get_after_update", lambda: c.evaluators.get(evaluator=new_name, space=space.id))
    if got:
        r.eq("get_after_update", "fields", (got.id, got.description), (e.id, "rewritten"))

    cleared = r.op("update_clear_description", lambda: c.evaluators.update(evaluator=e.id,
                                                                           description=None))
    if cleared:
        r.eq("update_clear_description", "description", cleared.description, None)

    v2 = r.op("create_template_version", lambda: c.evaluators.create_template_version(
        evaluator=new_name, space=space.name, commit_message="v2",
        template_config=template("py_relevance", "Is {output} on topic?")))
    if v2:
        r.eq("create_template_version", "fields", (v2.evaluator_id, v2.commit_message, tc(v2)[1]),
             (e.id, "v2", "Is {output} on topic?"))
        latest = r.op("get_latest", lambda: c.evaluators.get(evaluator=e.id))
        r.eq("get_latest", "version", latest and latest.version.id, v2.id)
        first = r.op("get_version_id", lambda: c.evaluators.get(evaluator=e.id, version_id=v1.id))
        r.eq("get_version_id", "version", first and first.version.id, v1.id)
        gv = r.op("get_version", lambda: c.evaluators.get_version(version_id=v1.id))
        if gv:
            r.eq("get_version", "fields", (gv.id, gv.commit_message, tc(gv)), (v1.id, "v1", tc(v1)))
        versions = r.op("list_versions", lambda: c.evaluators.list_versions(evaluator=e.id))
        if versions:
            r.eq("list_versions", "ids", [x.id for x in versions.evaluator_versions],
                 [v2.id, v1.id])
        deleted = r.op("delete_versions", lambda: c.evaluators.delete_versions(
            evaluator=new_name, space=space.id, version_ids=[v1.id]))
        if deleted:
            r.eq("delete_versions", "result",
                 (deleted.deleted_version_ids, deleted.not_deleted_version_ids), ([v1.id], []))
        versions = r.op("list_versions_after_delete",
                        lambda: c.evaluators.list_versions(evaluator=e.id))
        if versions:
            r.eq("list_versions_after_delete", "ids",
                 [x.id for x in versions.evaluator_versions], [v2.id])

    # Every template option, read back as written.
    full = gen.TemplateConfigInput(
        name="py_full", template="Rate {output}", include_explanations=False,
        use_function_calling=True, use_structured_output=True,
        classification_choices={"good": 1, "bad": 0}, direction="MINIMIZE",
        data_granularity="TRACE",
        llm_config=gen.EvaluatorLlmConfigRequest(
            ai_integration_id=integration.id, model_name="gpt-4o-mini",
            invocation_parameters=gen.InvocationParamsRequest(temperature=0.3, max_tokens=50,
                                                               stop=["x"]),
            provider_parameters=gen.ProviderParamsRequest(region="us-east-1")))
    v3 = r.op("create_template_version_full", lambda: c.evaluators.create_template_version(
        evaluator=e.id, commit_message="full", template_config=full))
    if v3:
        gv = r.op("get_version_full", lambda: c.evaluators.get_version(version_id=v3.id))
        for op, v in [("create_template_version_full", v3), ("get_version_full", gv)]:
            if v:
                got = v.template_config.to_dict()
                want = full.to_dict()
                r.eq(op, "template_config",
                     {k: got.get(k) for k in want if k != "llm_config"},
                     {k: want[k] for k in want if k != "llm_config"})
                r.eq(op, "llm_config", got.get("llm_config"), want["llm_config"])

    r.op("delete", lambda: c.evaluators.delete(evaluator=new_name, space=space.name))
    after = r.op("list_after_delete", lambda: c.evaluators.list(space=space.id, name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.evaluators], [])

# Code evaluators: managed, then a custom version. The configs are given as dicts: SDK 8.61.0's
# _coerce_code_config serializes a typed ManagedCodeConfigRequest / CustomCodeConfigRequest /
# ManagedCodeConfig as null (it sets a oneof validator field, not actual_instance), so the
# request carries no code_config whatever the server.
managed = {"type": "MANAGED", "name": "py_exact", "managed_evaluator": "EXACT_MATCH",
           "variables": ["output", "expected"]}
code = r.op("create_code_evaluator", lambda: c.evaluators.create_code_evaluator(
    name=r.name("py-code"), space=space.id, commit_message="managed", code_config=managed))
if code:
    cc = code.version.code_config
    r.eq("create_code_evaluator", "fields", (val(code.type), val(cc.type), cc.name,
                                             val(cc.managed_evaluator), cc.variables),
         ("CODE", "MANAGED", "py_exact", "EXACT_MATCH", ["output", "expected"]))
    source = "class Py:\n    def evaluate(self, output):\n        return 1\n"
    custom = {"type": "CUSTOM", "name": "py_custom", "code": source, "imports": "import math",
              "variables": ["output"]}
    cv = r.op("create_code_version", lambda: c.evaluators.create_code_version(
        evaluator=code.id, commit_message="custom", code_config=custom))
    if cv:
        got = cv.code_config
        r.eq("create_code_version", "fields",
             (val(got.type), got.name, got.code, got.imports, got.variables),
             ("CUSTOM", "py_custom", source, "import math", ["output"]))
        gv = r.op("get_code_version", lambda: c.evaluators.get_version(version_id=cv.id))
        if gv:
            r.eq("get_code_version", "code", (val(gv.code_config.type), gv.code_config.code),
                 ("CUSTOM", source))
    r.op("delete_code_evaluator", lambda: c.evaluators.delete(evaluator=code.id))

# Remote evaluators (on EVALUATOR integrations), and a remote version.
remote_1 = evaluator_integration(c, r.name("py-remote-1"))
remote_2 = evaluator_integration(c, r.name("py-remote-2"))
remote = r.op("create_remote_evaluator", lambda: c.evaluators.create_remote_evaluator(
    name=r.name("py-remote"), space=space.name, integration_id=remote_1, commit_message="r1",
    description="remote"))
if remote:
    r.eq("create_remote_evaluator", "fields",
         (val(remote.type), remote.description, remote.version.remote_config.integration_id),
         ("REMOTE", "remote", remote_1))
    rv = r.op("create_remote_version", lambda: c.evaluators.create_remote_version(
        evaluator=remote.name, space=space.id, integration_id=remote_2, commit_message="r2"))
    if rv:
        r.eq("create_remote_version", "integration_id", rv.remote_config.integration_id, remote_2)
        got = r.op("get_remote", lambda: c.evaluators.get(evaluator=remote.id))
        r.eq("get_remote", "integration_id",
             got and got.version.remote_config.integration_id, remote_2)
    r.op("delete_remote_evaluator", lambda: c.evaluators.delete(evaluator=remote.id))
r.done()
