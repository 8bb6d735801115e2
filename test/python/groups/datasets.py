"""datasets through client.datasets: create from a list of dicts and from a pandas DataFrame,
get (id; name within a space), list (space, name), list examples (latest version, a named one,
a filter), append, update in place and into a new version, delete examples, rename, delete."""
import pandas as pd
from arize._generated import api_client as gen

from _common import Run, default_space

r = Run("datasets")
c = r.client
space = default_space(c)
name = r.name("py-dataset")
rows = [{"question": f"q{i}", "answer": f"a{i}", "n": i} for i in range(5)]

d = r.op("create", lambda: c.datasets.create(name=name, space=space.name, examples=rows))
if d:
    r.eq("create", "name", d.name, name)
    r.eq("create", "space_id", d.space_id, space.id)
    got = r.op("get", lambda: c.datasets.get(dataset=d.id))
    if got:
        r.eq("get", "versions", len(got.versions or []), 1)
    by_name = r.op("get_by_name", lambda: c.datasets.get(dataset=name, space=space.id))
    r.eq("get_by_name", "id", by_name and by_name.id, d.id)
    listed = r.op("list", lambda: c.datasets.list(space=space.name, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.datasets if x.id == d.id], [d.id])
    filtered = r.op("list_by_name", lambda: c.datasets.list(space=space.id, name=name))
    if filtered:
        r.eq("list_by_name", "ids", [x.id for x in filtered.datasets], [d.id])

    ex = r.op("list_examples", lambda: c.datasets.list_examples(dataset=d.id, limit=100))
    examples = ex.examples if ex else []
    r.eq("list_examples", "questions",
         [e.additional_properties.get("question") for e in examples], [x["question"] for x in rows])
    ids = [e.id for e in examples]

    one = r.op("list_examples_filter", lambda: c.datasets.list_examples(
        dataset=d.id, filter="question = 'q3'"))
    if one:
        r.eq("list_examples_filter", "ids", [e.id for e in one.examples], ids[3:4])

    appended = r.op("append_examples", lambda: c.datasets.append_examples(
        dataset=d.id, examples=[{"question": "q5", "answer": "a5", "n": 5}]))
    if appended:
        r.eq("append_examples", "count", len(appended.example_ids or []), 1)

    if ids:
        upd = r.op("update_examples", lambda: c.datasets.update_examples(
            dataset=d.id, examples=[{"id": ids[0], "answer": "changed", "extra": True}]))
        if upd:
            r.eq("update_examples", "example_ids", upd.example_ids, ids[:1])
            v1 = upd.dataset_version_id
        after = c.datasets.list_examples(dataset=d.id, limit=100).examples
        first = after[0].additional_properties if after else {}
        r.eq("update_examples", "merged", (first.get("answer"), first.get("question"),
                                           first.get("extra")), ("changed", "q0", True))

        nv = r.op("update_new_version", lambda: c.datasets.update_examples(
            dataset=d.id, examples=[{"id": ids[1], "answer": "v2"}], new_version="v2"))
        if nv and upd:
            r.eq("update_new_version", "new version", nv.dataset_version_id != v1, True)
            old = c.datasets.list_examples(dataset=d.id, dataset_version_id=v1, limit=100)
            r.eq("update_new_version", "old unchanged",
                 old.examples[1].additional_properties.get("answer"), "a1")
            new = r.op("list_examples_version", lambda: c.datasets.list_examples(
                dataset=d.id, dataset_version_id=nv.dataset_version_id, limit=100))
            if new:
                r.eq("list_examples_version", "changed",
                     new.examples[1].additional_properties.get("answer"), "v2")
            got = c.datasets.get(dataset=d.id)
            r.eq("update_new_version", "versions", [v.name for v in got.versions or []][0], "v2")
            deleted = r.op("delete_examples", lambda: c.datasets.delete_examples(
                dataset=d.id, dataset_version_id=nv.dataset_version_id,
                examples=[ids[2], ids[2][::-1]]))
            if deleted:
                r.eq("delete_examples", "result",
                     (deleted.completed, deleted.deleted_example_ids,
                      deleted.not_deleted_example_ids),
                     (True, [ids[2]], [ids[2][::-1]]))

    if ids:
        verdict = c.annotation_configs.create_categorical(
            name=r.name("py-verdict"), space=space.id,
            values=[gen.CategoricalAnnotationValueRequest(label="good", score=1),
                    gen.CategoricalAnnotationValueRequest(label="bad", score=0)])
        r.op("annotate_examples", lambda: c.datasets.annotate_examples(
            dataset=d.id, annotations=[gen.AnnotateRecordInput(
                record_id=ids[0], values=[gen.AnnotationInput(name=verdict.name, label="good")])]))
        shown = c.datasets.list_examples(dataset=d.id, dataset_version_id=v1, limit=100) \
            if upd else None
        if shown:
            got = [(a.name, a.label) for a in (shown.examples[0].annotations or [])]
            r.eq("annotate_examples", "annotations", got, [(verdict.name, "good")])

    new_name = r.name("py-dataset-renamed")
    ren = r.op("update", lambda: c.datasets.update(dataset=d.id, name=new_name))
    if ren:
        r.eq("update", "name", ren.name, new_name)

frame = pd.DataFrame({"input": ["x", "y", "z"], "score": [0.1, 0.5, 0.9]})
fd = r.op("create_from_dataframe", lambda: c.datasets.create(
    name=r.name("py-frame"), space=space.id, examples=frame))
if fd:
    back = c.datasets.list_examples(dataset=fd.id, limit=10).examples
    r.eq("create_from_dataframe", "rows",
         [(e.additional_properties.get("input"), e.additional_properties.get("score"))
          for e in back], [("x", 0.1), ("y", 0.5), ("z", 0.9)])
    c.datasets.delete(dataset=fd.id)

if d:
    r.op("delete", lambda: c.datasets.delete(dataset=d.id))
    gone = r.op("list_after_delete", lambda: c.datasets.list(space=space.id, name=name))
    if gone is not None:
        r.eq("list_after_delete", "ids", [x.id for x in gone.datasets], [])
r.done()
