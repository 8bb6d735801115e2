"""annotation_configs through client.annotation_configs: create (continuous, categorical,
freeform), get (id, name), list (space, name), update (each kind), delete."""
from _common import Run, default_space, val

from arize._generated import api_client as gen

r = Run("annotation_configs")
c = r.client
space = default_space(c)
ac = c.annotation_configs


def values(cfg):
    return [(v.label, v.score) for v in cfg.values]


# Continuous.
name = r.name("py-score")
cont = r.op("create_continuous", lambda: ac.create_continuous(
    name=name, space=space.name, minimum_score=0, maximum_score=10,
    optimization_direction="MAXIMIZE"))
if cont:
    r.eq("create_continuous", "fields",
         (cont.name, cont.space_id, val(cont.type), cont.minimum_score, cont.maximum_score,
          val(cont.optimization_direction)),
         (name, space.id, "CONTINUOUS", 0, 10, "MAXIMIZE"))
    got = r.op("get", lambda: ac.get(annotation_config=cont.id))
    if got:
        r.eq("get", "fields", (got.id, got.name, got.minimum_score, got.maximum_score),
             (cont.id, name, 0, 10))
    by_name = r.op("get_by_name", lambda: ac.get(annotation_config=name, space=space.name))
    r.eq("get_by_name", "id", by_name and by_name.id, cont.id)
    listed = r.op("list", lambda: ac.list(space=space.id, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.annotation_configs
                                  if x.id == cont.id], [cont.id])
    filtered = r.op("list_by_name", lambda: ac.list(space=space.name, name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.annotation_configs],
             [cont.id])
    new_name = r.name("py-score-renamed")
    upd = r.op("update_continuous", lambda: ac.update_continuous(
        annotation_config=name, space=space.id, name=new_name, minimum_score=-1.5,
        maximum_score=2.5, optimization_direction="MINIMIZE"))
    if upd:
        r.eq("update_continuous", "fields",
             (upd.id, upd.name, upd.minimum_score, upd.maximum_score,
              val(upd.optimization_direction)), (cont.id, new_name, -1.5, 2.5, "MINIMIZE"))
    got = r.op("get_after_update", lambda: ac.get(annotation_config=new_name, space=space.id))
    if got:
        r.eq("get_after_update", "fields", (got.id, got.minimum_score, got.maximum_score,
                                            val(got.optimization_direction)),
             (cont.id, -1.5, 2.5, "MINIMIZE"))
    r.op("delete", lambda: ac.delete(annotation_config=new_name, space=space.name))
    after = r.op("list_after_delete", lambda: ac.list(space=space.id, name=new_name))
    if after is not None:
        r.eq("list_after_delete", "ids", [x.id for x in after.annotation_configs],
             [])

# Categorical.
cat = r.op("create_categorical", lambda: ac.create_categorical(
    name=r.name("py-verdict"), space=space.id,
    values=[gen.CategoricalAnnotationValueRequest(label="good", score=1),
            gen.CategoricalAnnotationValueRequest(label="bad", score=0)],
    optimization_direction="MAXIMIZE"))
if cat:
    r.eq("create_categorical", "fields", (val(cat.type), values(cat),
                                          val(cat.optimization_direction)),
         ("CATEGORICAL", [("good", 1), ("bad", 0)], "MAXIMIZE"))
    upd = r.op("update_categorical", lambda: ac.update_categorical(
        annotation_config=cat.id, name=r.name("py-verdict-2"),
        values=[gen.CategoricalAnnotationValueRequest(label="yes", score=1),
                gen.CategoricalAnnotationValueRequest(label="no", score=0),
                gen.CategoricalAnnotationValueRequest(label="unsure")]))
    if upd:
        r.eq("update_categorical", "fields", (upd.name, values(upd)),
             (r.name("py-verdict-2"), [("yes", 1), ("no", 0), ("unsure", None)]))
    got = r.op("get_categorical", lambda: ac.get(annotation_config=cat.id))
    if got:
        r.eq("get_categorical", "values", values(got), [("yes", 1), ("no", 0), ("unsure", None)])
    r.op("delete_categorical", lambda: ac.delete(annotation_config=cat.id))

# Freeform.
free = r.op("create_freeform", lambda: ac.create_freeform(name=r.name("py-notes"), space=space.id))
if free:
    r.eq("create_freeform", "fields", (free.name, val(free.type)), (r.name("py-notes"), "FREEFORM"))
    upd = r.op("update_freeform", lambda: ac.update_freeform(
        annotation_config=free.name, space=space.name, name=r.name("py-notes-2")))
    if upd:
        r.eq("update_freeform", "name", upd.name, r.name("py-notes-2"))
    got = r.op("get_freeform", lambda: ac.get(annotation_config=free.id))
    r.eq("get_freeform", "name", got and got.name, r.name("py-notes-2"))
    r.op("delete_freeform", lambda: ac.delete(annotation_config=free.id))
r.done()
