"""resource_restrictions through client.resource_restrictions: restrict (PROJECT, PROMPT),
list (resource_type), unrestrict."""
from _common import Run, default_space, val

from arize._generated import api_client as gen

r = Run("resource_restrictions")
c = r.client
space = default_space(c)
project = c.projects.create(name=r.name("py-restricted-project"), space=space.id)
prompt = c.prompts.create(
    space=space.id, name=r.name("py-restricted-prompt"), commit_message="v1",
    input_variable_format="F_STRING", provider="OPEN_AI",
    messages=[gen.LLMMessageRequest(role="USER", content="hi {x}")])

for kind, rid in [("PROJECT", project.id), ("PROMPT", prompt.id)]:
    k = kind.lower()
    res = r.op(f"restrict_{k}", lambda: c.resource_restrictions.restrict(resource_id=rid))
    if res:
        r.eq(f"restrict_{k}", "fields", (val(res.resource_type), res.resource_id), (kind, rid))
    again = r.op(f"restrict_{k}_again", lambda: c.resource_restrictions.restrict(resource_id=rid))
    if again and res:
        r.eq(f"restrict_{k}_again", "created_at", again.created_at, res.created_at)
    listed = r.op(f"list_{k}", lambda: c.resource_restrictions.list(resource_type=kind, limit=100))
    if listed:
        r.eq(f"list_{k}", "ids", [x.resource_id for x in listed.resource_restrictions
                                  if x.resource_id == rid], [rid])
        r.eq(f"list_{k}", "types", {val(x.resource_type) for x in listed.resource_restrictions},
             {kind})
    everything = r.op(f"list_all_{k}", lambda: c.resource_restrictions.list(limit=100))
    if everything:
        r.eq(f"list_all_{k}", "ids", [x.resource_id for x in everything.resource_restrictions
                                      if x.resource_id == rid], [rid])
    r.op(f"unrestrict_{k}", lambda: c.resource_restrictions.unrestrict(resource_id=rid))
    after = r.op(f"list_{k}_after_unrestrict",
                 lambda: c.resource_restrictions.list(resource_type=kind, limit=100))
    if after:
        r.eq(f"list_{k}_after_unrestrict", "ids",
             [x.resource_id for x in after.resource_restrictions if x.resource_id == rid], [])
r.done()
