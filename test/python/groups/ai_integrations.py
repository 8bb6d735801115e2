"""ai_integrations through client.ai_integrations: create, get (id; name within a space),
list (name, space), update, delete."""
from _common import Run, default_space, val

from arize._generated import api_client as gen

r = Run("ai_integrations")
c = r.client
ai = c.ai_integrations
space = default_space(c)
name = r.name("py-llm")

i = r.op("create", lambda: ai.create(
    name=name, provider="OPEN_AI", api_key="sk-secret", base_url="https://llm.example.com/v1",
    model_names=["gpt-4o", "gpt-4o-mini"], headers={"x-team": "py"}, enable_default_models=False,
    function_calling_enabled=True, auth_type="DEFAULT",
    scopings=[gen.AiIntegrationScopingRequest(space_id=space.id)]))


def fields(x):
    return (x.name, val(x.provider), x.has_api_key, x.base_url, x.model_names, x.headers,
            x.enable_default_models, x.function_calling_enabled, val(x.auth_type),
            [(s.organization_id, s.space_id) for s in x.scopings or []])


written = (name, "OPEN_AI", True, "https://llm.example.com/v1", ["gpt-4o", "gpt-4o-mini"],
           {"x-team": "py"}, False, True, "DEFAULT", [(None, space.id)])
if i:
    r.eq("create", "fields", fields(i), written)
    got = r.op("get", lambda: ai.get(integration=i.id))
    if got:
        r.eq("get", "fields", fields(got), written)
    by_name = r.op("get_by_name", lambda: ai.get(integration=name, space=space.name))
    r.eq("get_by_name", "id", by_name and by_name.id, i.id)
    listed = r.op("list", lambda: ai.list(limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.ai_integrations if x.id == i.id], [i.id])
    filtered = r.op("list_by_name", lambda: ai.list(name=name, space=space.id))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.ai_integrations], [i.id])

    new_name = r.name("py-llm-renamed")
    upd = r.op("update", lambda: ai.update(
        integration=name, space=space.id, name=new_name, provider="AZURE_OPEN_AI",
        base_url="https://azure.example.com", model_names=["gpt-4.1"], headers={"x-team": "ml"},
        enable_default_models=True, function_calling_enabled=False, api_key=None))
    rewritten = (new_name, "AZURE_OPEN_AI", False, "https://azure.example.com", ["gpt-4.1"],
                 {"x-team": "ml"}, True, False, "DEFAULT", [(None, space.id)])
    if upd:
        r.eq("update", "fields", fields(upd), rewritten)
    got = r.op("get_after_update", lambda: ai.get(integration=new_name, space=space.name))
    if got:
        r.eq("get_after_update", "fields", fields(got), rewritten)
    # Re-scoped to the organization, then to the whole account (no scopings).
    org = c.organizations.get(organization="Default Organization")
    rescoped = r.op("update_scopings", lambda: ai.update(
        integration=i.id, scopings=[gen.AiIntegrationScopingRequest(organization_id=org.id)]))
    if rescoped:
        r.eq("update_scopings", "scopings",
             [(x.organization_id, x.space_id) for x in rescoped.scopings or []], [(org.id, None)])
    # (scopings=None is not sent by the SDK: its model drops it, leaving an empty body.)
    unscoped = r.op("update_clear_scopings", lambda: ai.update(integration=i.id, scopings=[]))
    if unscoped:
        r.eq("update_clear_scopings", "scopings", unscoped.scopings or [], [])
    r.op("delete", lambda: ai.delete(integration=new_name, space=space.id))
    after = r.op("list_after_delete", lambda: ai.list(name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.ai_integrations], [])

# Cloud providers: AWS Bedrock and Vertex AI, each with its provider_metadata.
for provider, meta in [
    ("AWS_BEDROCK", gen.AwsProviderMetadataRequest(kind="AWS", role_arn="arn:aws:iam::1:role/x",
                                                    external_id="ext-1")),
    ("VERTEX_AI", gen.GcpProviderMetadataRequest(kind="GCP", project_id="proj-1",
                                                  location="us-central1",
                                                  project_access_label="Project One")),
]:
    op = f"create_{provider.lower()}"
    cloud = r.op(op, lambda: ai.create(name=r.name(f"py-{provider}"), provider=provider,
                                       provider_metadata=meta))
    if cloud:
        got = r.op(f"get_{provider.lower()}", lambda: ai.get(integration=cloud.id))
        for o, x in [(op, cloud), (f"get_{provider.lower()}", got)]:
            if x:
                r.eq(o, "provider", val(x.provider), provider)
                r.eq(o, "provider_metadata", x.provider_metadata.actual_instance.to_dict(),
                     meta.to_dict())
        r.op(f"delete_{provider.lower()}", lambda: ai.delete(integration=cloud.id))
r.done()
