"""roles through client.roles: create, get (id, name), list (is_predefined), update, delete."""
from _common import Run, val

r = Run("roles")
c = r.client
name = r.name("py-role")
perms = ["PROJECT_READ", "SPACE_READ"]

role = r.op("create", lambda: c.roles.create(name=name, permissions=perms, description="written"))
if role:
    r.eq("create", "name", role.name, name)
    r.eq("create", "description", role.description, "written")
    r.eq("create", "permissions", sorted(val(p) for p in role.permissions), perms)
    r.eq("create", "is_predefined", role.is_predefined, False)
    got = r.op("get", lambda: c.roles.get(role=role.id))
    if got:
        r.eq("get", "id", got.id, role.id)
        r.eq("get", "name", got.name, name)
        r.eq("get", "description", got.description, "written")
        r.eq("get", "permissions", sorted(val(p) for p in got.permissions), perms)
    by_name = r.op("get_by_name", lambda: c.roles.get(role=name))
    r.eq("get_by_name", "id", by_name and by_name.id, role.id)
    custom = r.op("list_custom", lambda: c.roles.list(is_predefined=False, limit=100))
    if custom:
        r.eq("list_custom", "contains", [x.id for x in custom.roles if x.id == role.id], [role.id])
        r.eq("list_custom", "all_custom", {x.is_predefined for x in custom.roles}, {False})
    predefined = r.op("list_predefined", lambda: c.roles.list(is_predefined=True, limit=100))
    if predefined:
        r.eq("list_predefined", "excludes", [x.id for x in predefined.roles if x.id == role.id], [])
        r.eq("list_predefined", "all_predefined", {x.is_predefined for x in predefined.roles},
             {True})

    new_name = r.name("py-role-renamed")
    new_perms = ["PROJECT_READ", "PROJECT_UPDATE", "SPACE_READ"]
    upd = r.op("update", lambda: c.roles.update(role=name, name=new_name, description="rewritten",
                                                permissions=new_perms))
    if upd:
        r.eq("update", "name", upd.name, new_name)
        r.eq("update", "description", upd.description, "rewritten")
        r.eq("update", "permissions", sorted(val(p) for p in upd.permissions), new_perms)
    got = r.op("get_after_update", lambda: c.roles.get(role=new_name))
    if got:
        r.eq("get_after_update", "id", got.id, role.id)
        r.eq("get_after_update", "description", got.description, "rewritten")
        r.eq("get_after_update", "permissions", sorted(val(p) for p in got.permissions), new_perms)

    r.op("delete", lambda: c.roles.delete(role=new_name))
    after = r.op("list_after_delete", lambda: c.roles.list(is_predefined=False, limit=100))
    if after:
        r.eq("list_after_delete", "ids", [x.id for x in after.roles if x.id == role.id], [])
r.done()
