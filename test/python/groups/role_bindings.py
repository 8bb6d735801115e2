"""role_bindings through client.role_bindings: create (SPACE, PROJECT; a user and a service
key's bot user), get, list (resource_type, user_id), update, delete."""
from _common import Run, default_org, default_space, member, val

from arize.api_keys.types import OrgBinding, SpaceBinding
from arize.organizations.types import PredefinedOrgRole

r = Run("role_bindings")
c = r.client
org = default_org(c)
space = default_space(c)
user = member(c)
c.organizations.add_user(organization=org.id, user_id=user.id,
                         role=PredefinedOrgRole(name="MEMBER"))
role = c.roles.create(name=r.name("py-binding-role"), permissions=["PROJECT_READ", "SPACE_READ"])
other = c.roles.create(name=r.name("py-binding-other"), permissions=["PROJECT_READ"])
project = c.projects.create(name=r.name("py-binding-project"), space=space.id)

b = r.op("create_space_binding", lambda: c.role_bindings.create(
    user_id=user.id, role_id=role.id, resource_type="SPACE", resource_id=space.id))
if b:
    r.eq("create_space_binding", "fields",
         (b.user_id, b.role_id, val(b.resource_type), b.resource_id),
         (user.id, role.id, "SPACE", space.id))
    got = r.op("get", lambda: c.role_bindings.get(binding_id=b.id))
    if got:
        r.eq("get", "fields", (got.id, got.user_id, got.role_id, val(got.resource_type),
                               got.resource_id), (b.id, user.id, role.id, "SPACE", space.id))
    listed = r.op("list_space", lambda: c.role_bindings.list(resource_type="SPACE",
                                                              user_id=user.id))
    if listed:
        r.eq("list_space", "ids", [x.id for x in listed.role_bindings], [b.id])
    upd = r.op("update", lambda: c.role_bindings.update(binding_id=b.id, role_id=other.id))
    if upd:
        r.eq("update", "role_id", upd.role_id, other.id)
        r.eq("update", "id", upd.id, b.id)
    got = r.op("get_after_update", lambda: c.role_bindings.get(binding_id=b.id))
    if got:
        r.eq("get_after_update", "role_id", got.role_id, other.id)
    r.op("delete", lambda: c.role_bindings.delete(binding_id=b.id))
    after = r.op("list_after_delete", lambda: c.role_bindings.list(resource_type="SPACE",
                                                                    user_id=user.id))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.role_bindings], [])

p = r.op("create_project_binding", lambda: c.role_bindings.create(
    user_id=user.id, role_id=role.id, resource_type="PROJECT", resource_id=project.id))
if p:
    r.eq("create_project_binding", "fields",
         (p.user_id, p.role_id, val(p.resource_type), p.resource_id),
         (user.id, role.id, "PROJECT", project.id))
    listed = r.op("list_project", lambda: c.role_bindings.list(resource_type="PROJECT",
                                                                user_id=user.id))
    if listed:
        r.eq("list_project", "ids", [x.id for x in listed.role_bindings], [p.id])
    r.op("delete_project_binding", lambda: c.role_bindings.delete(binding_id=p.id))

# A service key's bot user (its id is bot_user.id, as the SDK documents), on a restricted
# project: the key reads the project only once bound to it.
key = c.api_keys.create_service_key(
    name=r.name("py-binding-key"),
    orgs=[OrgBinding(org_id=org.id, spaces=[SpaceBinding(space=space.id)])])
bot = key.bot_user.id
as_bot = r.client_with(key.key)
c.resource_restrictions.restrict(resource_id=project.id)


def bot_reads_project() -> bool:
    try:
        return as_bot.projects.get(project=project.id).id == project.id
    except Exception as err:  # noqa: BLE001
        if getattr(err, "status", None) == 404:
            return False
        raise


r.eq("bot_reads_restricted", "before_binding", r.op("bot_reads_restricted", bot_reads_project),
     False)
kb = r.op("create_bot_binding", lambda: c.role_bindings.create(
    user_id=bot, role_id=role.id, resource_type="PROJECT", resource_id=project.id))
if kb:
    r.eq("create_bot_binding", "fields", (kb.user_id, kb.role_id, val(kb.resource_type),
                                          kb.resource_id), (bot, role.id, "PROJECT", project.id))
    got = r.op("get_bot_binding", lambda: c.role_bindings.get(binding_id=kb.id))
    r.eq("get_bot_binding", "user_id", got and got.user_id, bot)
    listed = r.op("list_bot", lambda: c.role_bindings.list(resource_type="PROJECT", user_id=bot))
    if listed:
        r.eq("list_bot", "ids", [x.id for x in listed.role_bindings], [kb.id])
    r.eq("bot_reads_bound", "after_binding", r.op("bot_reads_bound", bot_reads_project), True)
    r.op("delete_bot_binding", lambda: c.role_bindings.delete(binding_id=kb.id))
    r.eq("bot_reads_unbound", "after_delete", r.op("bot_reads_unbound", bot_reads_project), False)
r.done()
