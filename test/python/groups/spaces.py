"""spaces through client.spaces: create, get (id, name), list (name), update, members, delete."""
from _common import Run, default_org, member, val

from arize.organizations.types import PredefinedOrgRole
from arize.spaces.types import (
    CustomSpaceRole,
    DefaultAgentRuntime,
    DefaultLLMIntegration,
    PredefinedSpaceRole,
)

r = Run("spaces")
c = r.client
org = default_org(c)
name = r.name("py-space")

s = r.op("create", lambda: c.spaces.create(
    name=name, organization_id=org.id, description="written", is_private=True))
if s:
    r.eq("create", "name", s.name, name)
    r.eq("create", "organization_id", s.organization_id, org.id)
    r.eq("create", "description", s.description, "written")
    r.eq("create", "is_private", s.is_private, True)
    got = r.op("get", lambda: c.spaces.get(space=s.id))
    if got:
        r.eq("get", "id", got.id, s.id)
        r.eq("get", "name", got.name, name)
        r.eq("get", "description", got.description, "written")
        r.eq("get", "is_private", got.is_private, True)
    by_name = r.op("get_by_name", lambda: c.spaces.get(space=name))
    if by_name:
        r.eq("get_by_name", "id", by_name.id, s.id)
    listed = r.op("list", lambda: c.spaces.list(organization_id=org.id, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.spaces if x.id == s.id], [s.id])
    filtered = r.op("list_by_name", lambda: c.spaces.list(name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.spaces], [s.id])

    new_name = r.name("py-space-renamed")
    upd = r.op("update", lambda: c.spaces.update(
        space=name, name=new_name, description="rewritten", is_private=False,
        gradient_start_color="#000000", gradient_end_color="#ffffff"))
    if upd:
        r.eq("update", "name", upd.name, new_name)
    got = r.op("get_after_update", lambda: c.spaces.get(space=s.id))
    if got:
        r.eq("get_after_update", "name", got.name, new_name)
        r.eq("get_after_update", "description", got.description, "rewritten")
        r.eq("get_after_update", "is_private", got.is_private, False)
        r.eq("get_after_update", "gradient_start_color", got.gradient_start_color, "#000000")
        r.eq("get_after_update", "gradient_end_color", got.gradient_end_color, "#ffffff")
    ai = c.ai_integrations.create(name=r.name("py-space-llm"), provider="OPEN_AI")
    llm = r.op("update_settings", lambda: c.spaces.update(
        space=s.id, ml_models_enabled=False,
        default_llm_integration=DefaultLLMIntegration(integration_id=ai.id, model_name="gpt-4o"),
        default_agent_runtime=DefaultAgentRuntime(integration_id="runtime-1")))
    if llm:
        r.eq("update_settings", "settings",
             (llm.ml_models_enabled, llm.default_llm_integration.integration_id,
              llm.default_llm_integration.model_name, llm.default_agent_runtime.integration_id),
             (False, ai.id, "gpt-4o", "runtime-1"))
    unset = r.op("update_clear_settings", lambda: c.spaces.update(
        space=s.id, default_llm_integration=None, default_agent_runtime=None))
    if unset:
        r.eq("update_clear_settings", "settings",
             (unset.default_llm_integration, unset.default_agent_runtime,
              unset.ml_models_enabled), (None, None, False))
    got = r.op("get_after_clear_settings", lambda: c.spaces.get(space=s.id))
    if got:
        r.eq("get_after_clear_settings", "settings",
             (got.default_llm_integration, got.default_agent_runtime, got.gradient_end_color),
             (None, None, "#ffffff"))
    cleared = r.op("update_clear_description",
                   lambda: c.spaces.update(space=s.id, description=None))
    if cleared:
        # Argus's Space.description is a string: a cleared description reads back as "".
        r.eq("update_clear_description", "description", cleared.description, "")

    # Members: a user added with a predefined role, then removed.
    user = member(c)
    # A space member must belong to the space's organization first.
    c.organizations.add_user(organization=org.id, user_id=user.id,
                             role=PredefinedOrgRole(name="MEMBER"))
    m = r.op("add_user", lambda: c.spaces.add_user(
        space=new_name, user_id=user.id, role=PredefinedSpaceRole(name="READ_ONLY")))
    if m:
        r.eq("add_user", "user_id", m.user_id, user.id)
        r.eq("add_user", "space_id", m.space_id, s.id)
        r.eq("add_user", "role", (val(m.role.type), val(m.role.name)), ("PREDEFINED", "READ_ONLY"))
    r.op("remove_user", lambda: c.spaces.remove_user(space=s.id, user_id=user.id))
    # Again with a custom role.
    role = c.roles.create(name=r.name("py-space-role"), permissions=["SPACE_READ", "PROJECT_READ"])
    m = r.op("add_user_custom_role", lambda: c.spaces.add_user(
        space=s.id, user_id=user.id, role=CustomSpaceRole(id=role.id)))
    if m:
        r.eq("add_user_custom_role", "role", (val(m.role.type), m.role.id, m.role.name),
             ("CUSTOM", role.id, role.name))
    r.op("remove_user_custom_role", lambda: c.spaces.remove_user(space=new_name, user_id=user.id))

    r.op("delete", lambda: c.spaces.delete(space=new_name))
    after = r.op("list_after_delete", lambda: c.spaces.list(name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.spaces], [])
r.done()
