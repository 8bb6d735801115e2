"""experiments through client.experiments: create with runs on a dataset and in a space, get,
list (dataset, space, name), list runs, append runs, delete."""
from arize._generated import api_client as gen
from arize.experiments.types import ExperimentTaskFieldNames

from _common import Run, default_space

r = Run("experiments")
c = r.client
space = default_space(c)
d = c.datasets.create(name=r.name("py-exp-dataset"), space=space.id,
                      examples=[{"question": f"q{i}"} for i in range(3)])
examples = c.datasets.list_examples(dataset=d.id, limit=10).examples
name = r.name("py-experiment")
runs = [{"example_id": e.id, "output": f"answer {i}"} for i, e in enumerate(examples)]

fields = ExperimentTaskFieldNames(example_id="example_id", output="output")
e = r.op("create", lambda: c.experiments.create(
    name=name, dataset=d.id, experiment_runs=runs, task_fields=fields))
if e:
    r.eq("create", "dataset_id", e.dataset_id, d.id)
    got = r.op("get", lambda: c.experiments.get(experiment=e.id))
    if got:
        r.eq("get", "name", got.name, name)
    listed = r.op("list", lambda: c.experiments.list(dataset=d.id))
    if listed:
        r.eq("list", "ids", [x.id for x in listed.experiments], [e.id])
    everywhere = r.op("list_all", lambda: c.experiments.list(limit=100))
    if everywhere:
        r.eq("list_all", "contains", [x.id for x in everywhere.experiments if x.id == e.id], [e.id])
    got_runs = r.op("list_runs", lambda: c.experiments.list_runs(experiment=e.id, limit=100))
    if got_runs:
        r.eq("list_runs", "outputs", [x.output for x in got_runs.experiment_runs],
             [x["output"] for x in runs])
        r.eq("list_runs", "examples", [x.example_id for x in got_runs.experiment_runs],
             [x.id for x in examples])
    verdict = c.annotation_configs.create_freeform(name=r.name("py-note"), space=space.id)
    first_run = c.experiments.list_runs(experiment=e.id, limit=1).experiment_runs[0]
    r.op("annotate_runs", lambda: c.experiments.annotate_runs(
        experiment=e.id, annotations=[gen.AnnotateRecordInput(
            record_id=first_run.id, values=[gen.AnnotationInput(name=verdict.name, text="fine")])]))
    again = c.experiments.list_runs(experiment=e.id, limit=1).experiment_runs[0]
    r.eq("annotate_runs", "annotations",
         [(a.name, a.text) for a in (again.annotations or [])], [(verdict.name, "fine")])
    more = r.op("append_runs", lambda: c.experiments.append_runs(
        experiment=e.id, experiment_runs=[{"example_id": examples[0].id, "output": "again"}]))
    if more:
        r.eq("append_runs", "count", len(getattr(more, "run_ids", None) or []), 1)
    r.op("delete", lambda: c.experiments.delete(experiment=e.id))

free_name = r.name("py-free-experiment")
free = r.op("create_in_space", lambda: c.experiments.create(
    name=free_name, space=space.id, experiment_runs=[{"output": "standalone"}],
    task_fields=ExperimentTaskFieldNames(output="output")))
if free:
    r.eq("create_in_space", "dataset_id", free.dataset_id, None)
    in_space = r.op("list_by_space", lambda: c.experiments.list(space=space.name, limit=100))
    if in_space:
        r.eq("list_by_space", "contains",
             [x.id for x in in_space.experiments if x.id == free.id], [free.id])
    c.experiments.delete(experiment=free.id)
c.datasets.delete(dataset=d.id)
r.done()
