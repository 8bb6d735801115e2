"""projects through client.projects: create, get (id; name within a space given by id or name),
list (space, name), update, delete."""
from _common import Run, default_space

r = Run("projects")
c = r.client
space = default_space(c)
name = r.name("py-project")

p = r.op("create", lambda: c.projects.create(name=name, space=space.name))
if p:
    r.eq("create", "name", p.name, name)
    r.eq("create", "space_id", p.space_id, space.id)
    got = r.op("get", lambda: c.projects.get(project=p.id))
    if got:
        r.eq("get", "fields", (got.id, got.name, got.space_id), (p.id, name, space.id))
    by_name = r.op("get_by_name", lambda: c.projects.get(project=name, space=space.id))
    r.eq("get_by_name", "id", by_name and by_name.id, p.id)
    by_names = r.op("get_by_name_in_named_space",
                    lambda: c.projects.get(project=name, space=space.name))
    r.eq("get_by_name_in_named_space", "id", by_names and by_names.id, p.id)
    listed = r.op("list", lambda: c.projects.list(space=space.name, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.projects if x.id == p.id], [p.id])
        r.eq("list", "spaces", {x.space_id for x in listed.projects}, {space.id})
    filtered = r.op("list_by_name", lambda: c.projects.list(space=space.id, name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.projects], [p.id])

    # Paging: two projects, one a page, the cursor leading from one to the other.
    extra = c.projects.create(name=r.name("py-project-2"), space=space.id)
    first = r.op("list_page", lambda: c.projects.list(space=space.id, name=r.suffix, limit=1))
    if first:
        r.eq("list_page", "page", (len(first.projects), first.pagination.has_more), (1, True))
        second = r.op("list_next_page", lambda: c.projects.list(
            space=space.id, name=r.suffix, limit=1, cursor=first.pagination.next_cursor))
        if second:
            r.eq("list_next_page", "ids", sorted([first.projects[0].id] +
                                                 [x.id for x in second.projects]),
                 sorted([p.id, extra.id]))
            r.eq("list_next_page", "has_more", second.pagination.has_more, False)
    c.projects.delete(project=extra.id)

    new_name = r.name("py-project-renamed")
    upd = r.op("update", lambda: c.projects.update(project=name, space=space.id, name=new_name))
    if upd:
        r.eq("update", "name", upd.name, new_name)
        r.eq("update", "id", upd.id, p.id)
    got = r.op("get_after_update", lambda: c.projects.get(project=new_name, space=space.id))
    if got:
        r.eq("get_after_update", "id", got.id, p.id)
        r.eq("get_after_update", "name", got.name, new_name)
    r.op("delete", lambda: c.projects.delete(project=new_name, space=space.name))
    after = r.op("list_after_delete", lambda: c.projects.list(space=space.id, name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.projects], [])
r.done()
