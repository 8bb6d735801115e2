"""experiments through client.experiments: create with runs on a dataset and in a space, get,
list (dataset, space, name), list runs, append runs, delete; and run: a task and an evaluator
run by the SDK on the dataset's examples (REST, force_http), the task's spans exported over
OTLP/gRPC to the stack (argv[3]), the runs uploaded with their evaluations."""
from datetime import datetime, timedelta, timezone
from urllib.parse import urlparse

from arize import ArizeClient
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

# experiments.run: the SDK's own loop over the examples, traced to the stack's OTLP/gRPC.
otlp_host, otlp_port = r.args[0].rsplit(":", 1)
api = urlparse(r.base)
runner = ArizeClient(api_key=r.key, api_host=api.hostname, api_scheme=api.scheme,
                     api_port=api.port, otlp_host=otlp_host, otlp_scheme="http",
                     otlp_port=int(otlp_port))


def shout(dataset_row):
    return dataset_row["question"].upper()


def exact(output, dataset_row):
    return 1.0 if output == dataset_row["question"].upper() else 0.0


started = datetime.now(timezone.utc) - timedelta(minutes=1)
ran = r.op("run", lambda: runner.experiments.run(
    name=r.name("py-run"), dataset=d.id, task=shout, evaluators={"exact": exact},
    force_http=True, concurrency=1))
if ran:
    exp, table = ran
    r.eq("run", "dataset_id", exp and exp.dataset_id, d.id)
    r.eq("run", "statuses", sorted(table["execution_status"]), ["COMPLETED"] * 3)
    ran_runs = r.op("run_runs", lambda: c.experiments.list_runs(experiment=exp.id, limit=10))
    if ran_runs:
        rows = [x.to_dict() for x in ran_runs.experiment_runs]
        r.eq("run_runs", "outputs", sorted(x["output"] for x in rows), ["Q0", "Q1", "Q2"])
        r.eq("run_runs", "scores", [float(x.get("eval.exact.score")) for x in rows], [1.0] * 3)
        traced = {x.get("result.trace.id") for x in rows}
        spans = r.op("run_traces", lambda: c.spans.list(
            project="traces_for_http_run", space=space.id, start_time=started,
            end_time=datetime.now(timezone.utc) + timedelta(minutes=1), limit=100))
        if spans:
            r.eq("run_traces", "task traces stored",
                 sorted(traced & {s.context.trace_id for s in spans.spans or []}),
                 sorted(traced))
    c.experiments.delete(experiment=exp.id)

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
