"""organizations through client.organizations: create, get (id, name), list, update, members,
delete."""


from _common import Run, member, val

from arize.organizations.types import PredefinedOrgRole

r = Run("organizations")
c = r.client
name = r.name("py-org")

o = r.op("create", lambda: c.organizations.create(name=name, description="written"))
if o:
    r.eq("create", "name", o.name, name)
    r.eq("create", "description", o.description, "written")
    got = r.op("get", lambda: c.organizations.get(organization=o.id))
    if got:
        r.eq("get", "id", got.id, o.id)
        r.eq("get", "name", got.name, name)
        r.eq("get", "description", got.description, "written")
    by_name = r.op("get_by_name", lambda: c.organizations.get(organization=name))
    if by_name:
        r.eq("get_by_name", "id", by_name.id, o.id)
    listed = r.op("list", lambda: c.organizations.list(limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.organizations if x.id == o.id], [o.id])
    filtered = r.op("list_by_name", lambda: c.organizations.list(name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.organizations], [o.id])

    new_name = r.name("py-org-renamed")
    upd = r.op("update", lambda: c.organizations.update(
        organization=name, name=new_name, description="rewritten"))
    if upd:
        r.eq("update", "name", upd.name, new_name)
        r.eq("update", "description", upd.description, "rewritten")
    got = r.op("get_after_update", lambda: c.organizations.get(organization=o.id))
    if got:
        r.eq("get_after_update", "name", got.name, new_name)
        r.eq("get_after_update", "description", got.description, "rewritten")
    cleared = r.op("update_clear_description",
                   lambda: c.organizations.update(organization=o.id, description=None))
    if cleared:
        # Argus's Organization.description is a string: a cleared one reads back as "".
        r.eq("update_clear_description", "description", cleared.description, "")

    user = member(c)
    m = r.op("add_user", lambda: c.organizations.add_user(
        organization=new_name, user_id=user.id, role=PredefinedOrgRole(name="MEMBER")))
    if m:
        r.eq("add_user", "user_id", m.user_id, user.id)
        r.eq("add_user", "organization_id", m.organization_id, o.id)
        r.eq("add_user", "role", (val(m.role.type), val(m.role.name)), ("PREDEFINED", "MEMBER"))
    r.op("remove_user", lambda: c.organizations.remove_user(organization=o.id, user_id=user.id))

    r.op("delete", lambda: c.organizations.delete(organization=new_name))
    after = r.op("list_after_delete", lambda: c.organizations.list(name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.organizations], [])
r.done()
