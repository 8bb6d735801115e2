"""tasks through client.tasks: a CODE_EVALUATION task (a managed EXACT_MATCH code evaluator over
an experiment's runs on a dataset) created, read (id, name), listed (space, dataset), renamed,
triggered and waited for to COMPLETED, its runs listed and read, the evaluations read back on
the experiment's runs; a second trigger without override ends CANCELLED, cancelling a finished
run is refused (409), then delete; a CUSTOM (user Python) evaluator's task run to COMPLETED with
its labels on the runs. The dataset, experiment and evaluator are made with the
SDK's datasets, experiments and evaluators clients. Then a RUN_EXPERIMENT task (LLM_GENERATION):
created, renamed, triggered; its run makes the experiment with the test model's outputs."""
import os

from arize._generated import api_client as gen
from arize.experiments.types import ExperimentTaskFieldNames
from arize.tasks.types import TaskEvaluatorInput, TaskType

from _common import Run, default_space, val

r = Run("tasks")
c = r.client
space = default_space(c)
n = 4
d = c.datasets.create(name=r.name("py-task-dataset"), space=space.id,
                      examples=[{"question": f"q{i}", "expected": f"a{i}"} for i in range(n)])
examples = c.datasets.list_examples(dataset=d.id, limit=100).examples
# Every other output matches its example's `expected`.
outputs = [f"a{i}" if i % 2 == 0 else "wrong" for i in range(n)]
e = c.experiments.create(
    name=r.name("py-task-experiment"), dataset=d.id,
    experiment_runs=[{"example_id": x.id, "output": o} for x, o in zip(examples, outputs)],
    task_fields=ExperimentTaskFieldNames(example_id="example_id", output="output"))
# The code config as a dict (SDK 8.61.0 serializes a typed one as null: see evaluators.py).
ev = c.evaluators.create_code_evaluator(
    name=r.name("py-task-exact"), space=space.id, commit_message="managed",
    code_config={"type": "MANAGED", "name": "py_exact", "managed_evaluator": "EXACT_MATCH",
                 "variables": ["output", "expected"]})


def status_of(fn) -> object:
    """The status an SDK call fails with (the error itself if it has none), or "no error"."""
    try:
        fn()
    except Exception as err:  # noqa: BLE001
        return getattr(err, "status", None) or f"{type(err).__name__}: {err}"[:300]
    return "no error"


def counts(run) -> tuple:
    return (val(run.status), run.num_successes, run.num_errors, run.num_skipped)


# An evaluator attachment wraps its shape: SDK 8.61.0's TaskEvaluatorInput is a oneOf wrapper,
# and TaskEvaluatorInput(evaluator_id=...) sets no actual_instance, so it is sent as null.
attach = TaskEvaluatorInput(gen.SpanEvaluatorInput(evaluator_id=ev.id))
name = r.name("py-task")
t = r.op("create", lambda: c.tasks.create_evaluation_task(
    name=name, task_type=TaskType.CODE_EVALUATION, dataset=d.id, experiment_ids=[e.id],
    evaluators=[attach]))
if t:
    r.eq("create", "fields",
         (t.name, val(t.type), t.dataset_id, t.project_id, t.experiment_ids, t.is_continuous,
          t.sampling_rate, t.run_configuration, t.last_run_at),
         (name, "CODE_EVALUATION", d.id, None, [e.id], False, None, None, None))
    r.eq("create", "evaluators",
         [(x.evaluator_id, x.evaluator_version_id) for x in t.evaluators or []], [(ev.id, None)])
    got = r.op("get", lambda: c.tasks.get(task=t.id))
    if got:
        r.eq("get", "fields", (got.id, got.name, got.dataset_id), (t.id, name, d.id))
    by_name = r.op("get_by_name", lambda: c.tasks.get(task=name, space=space.name))
    r.eq("get_by_name", "id", by_name and by_name.id, t.id)
    listed = r.op("list", lambda: c.tasks.list(space=space.id, limit=100))
    if listed:
        r.eq("list", "contains", [x.id for x in listed.tasks or [] if x.id == t.id], [t.id])
    by_dataset = r.op("list_by_dataset", lambda: c.tasks.list(dataset=d.id))
    if by_dataset:
        r.eq("list_by_dataset", "ids", [x.id for x in by_dataset.tasks or []], [t.id])
    by_type = r.op("list_by_type", lambda: c.tasks.list(
        space=space.id, name=name, task_type=TaskType.CODE_EVALUATION))
    if by_type:
        r.eq("list_by_type", "ids", [x.id for x in by_type.tasks or []], [t.id])

    new_name = r.name("py-task-renamed")
    upd = r.op("update", lambda: c.tasks.update(task=name, space=space.id, name=new_name))
    if upd:
        r.eq("update", "fields", (upd.id, upd.name, upd.experiment_ids), (t.id, new_name, [e.id]))
    got = r.op("get_after_update", lambda: c.tasks.get(task=new_name, space=space.id))
    r.eq("get_after_update", "id", got and got.id, t.id)

    run = r.op("trigger", lambda: c.tasks.trigger_run(task=new_name, space=space.name))
    if run:
        r.eq("trigger", "fields", (run.task_id, val(run.status), run.experiment_id),
             (t.id, "PENDING", None))
        done = r.op("wait_for_run", lambda: c.tasks.wait_for_run(
            run_id=run.id, poll_interval=0.2, timeout=60))
        if done:
            r.eq("wait_for_run", "counts", counts(done), ("COMPLETED", n, 0, 0))
            r.eq("wait_for_run", "failure_reason", done.failure_reason, None)
            r.eq("wait_for_run", "times", done.run_started_at is not None
                 and done.run_finished_at is not None
                 and done.run_started_at <= done.run_finished_at, True)
        runs = r.op("list_runs", lambda: c.tasks.list_runs(task=t.id))
        if runs:
            r.eq("list_runs", "runs", [(x.id, val(x.status)) for x in runs.task_runs],
                 [(run.id, "COMPLETED")])
        completed = r.op("list_runs_by_status", lambda: c.tasks.list_runs(
            task=new_name, space=space.id, status="COMPLETED"))
        if completed:
            r.eq("list_runs_by_status", "ids", [x.id for x in completed.task_runs], [run.id])
        one = r.op("get_run", lambda: c.tasks.get_run(run_id=run.id))
        if one:
            r.eq("get_run", "fields", (one.id, one.task_id) + counts(one),
                 (run.id, t.id, "COMPLETED", n, 0, 0))
        after = r.op("get_after_run", lambda: c.tasks.get(task=t.id))
        r.eq("get_after_run", "last_run_at", after is not None and after.last_run_at is not None,
             True)

        # The evaluations, on the experiment's runs as the experiments client reads them.
        evaluated = r.op("runs_evaluated", lambda: c.experiments.list_runs(
            experiment=e.id, limit=100))
        if evaluated:
            got_runs = {x.example_id: x.additional_properties for x in evaluated.experiment_runs}
            r.eq("runs_evaluated", "labels",
                 [got_runs.get(x.id, {}).get("eval.py_exact.label") for x in examples],
                 ["true" if i % 2 == 0 else "false" for i in range(n)])
            r.eq("runs_evaluated", "scores",
                 [got_runs.get(x.id, {}).get("eval.py_exact.score") for x in examples],
                 [1 if i % 2 == 0 else 0 for i in range(n)])
        matched = r.op("runs_evaluated_filter", lambda: c.experiments.list_runs(
            experiment=e.id, filter="eval.py_exact.label = 'true'", limit=100))
        if matched:
            r.eq("runs_evaluated_filter", "outputs",
                 sorted(x.output for x in matched.experiment_runs), ["a0", "a2"])

        # Everything is labeled now: without override_evaluations the run cancels itself.
        again = r.op("trigger_again_cancelled", lambda: c.tasks.wait_for_run(
            run_id=c.tasks.trigger_run(task=t.id).id, poll_interval=0.2, timeout=60))
        if again:
            r.eq("trigger_again_cancelled", "counts", counts(again), ("CANCELLED", 0, 0, 0))
            r.eq("trigger_again_cancelled", "failure_reason",
                 "override_evaluations" in (again.failure_reason or ""), True)

        # A finished run cannot be cancelled: 409, the SDK's ConflictException.
        r.ops.append("cancel_finished")
        r.eq("cancel_finished", "status", status_of(lambda: c.tasks.cancel_run(run_id=run.id)),
             409)
        still = r.op("get_run_after_cancel", lambda: c.tasks.get_run(run_id=run.id))
        r.eq("get_run_after_cancel", "status", still and val(still.status), "COMPLETED")

    r.op("delete", lambda: c.tasks.delete(task=new_name, space=space.id))
    r.ops.append("get_after_delete")
    r.eq("get_after_delete", "status", status_of(lambda: c.tasks.get(task=t.id)), 404)
    gone = r.op("list_after_delete", lambda: c.tasks.list(dataset=d.id))
    if gone is not None:
        r.eq("list_after_delete", "ids", [x.id for x in gone.tasks or []], [])

# A CUSTOM code evaluator (user Python, run sandboxed) in an evaluation task over the same
# experiment: its class written as the SDK's evaluators are.
CUSTOM = """
from arize.experiments.evaluators.base import CodeEvaluator, EvaluationResult

class Agrees(CodeEvaluator):
    def evaluate(self, *, output, expected, **kwargs):
        same = output == expected
        return EvaluationResult(label="agrees" if same else "differs", score=float(same),
                                explanation=f"{output} / {expected}")
"""
custom = c.evaluators.create_code_evaluator(
    name=r.name("py-task-custom"), space=space.id, commit_message="custom",
    code_config={"type": "CUSTOM", "name": "py_custom", "code": CUSTOM,
                 "variables": ["output", "expected"]})
ct = r.op("create_custom", lambda: c.tasks.create_evaluation_task(
    name=r.name("py-task-custom"), task_type=TaskType.CODE_EVALUATION, dataset=d.id,
    experiment_ids=[e.id], evaluators=[TaskEvaluatorInput(gen.SpanEvaluatorInput(
        evaluator_id=custom.id))]))
if ct:
    cr = r.op("wait_for_custom", lambda: c.tasks.wait_for_run(
        run_id=c.tasks.trigger_run(task=ct.id).id, poll_interval=0.2, timeout=60))
    r.eq("wait_for_custom", "counts", cr and counts(cr), ("COMPLETED", n, 0, 0))
    judged = r.op("custom_evaluated", lambda: c.experiments.list_runs(
        experiment=e.id, limit=100))
    if judged:
        by_example = {x.example_id: x.additional_properties for x in judged.experiment_runs}
        r.eq("custom_evaluated", "labels",
             [by_example.get(x.id, {}).get("eval.py_custom.label") for x in examples],
             ["agrees" if i % 2 == 0 else "differs" for i in range(n)])
    c.tasks.delete(task=ct.id)
c.evaluators.delete(evaluator=custom.id)

# A RUN_EXPERIMENT task (LLM_GENERATION): created, renamed, triggered; its run makes the
# experiment, each output the test model's answer (ARGUS_FAKE_LLM_URL, an OpenAI-compatible
# server on loopback). A new run_configuration replaces the old one.
integration = c.ai_integrations.create(name=r.name("py-task-llm"), provider="OPEN_AI",
                                       api_key="sk-test",
                                       base_url=os.environ["ARGUS_FAKE_LLM_URL"])


def generation(text: str) -> dict:
    return {"experiment_type": "LLM_GENERATION", "ai_integration_id": integration.id,
            "model_name": "gpt-4o", "input_variable_format": "F_STRING",
            "messages": [{"role": "USER", "content": text}]}


x = r.op("create_run_experiment", lambda: c.tasks.create_run_experiment_task(
    name=r.name("py-run-task"), dataset=d.name, space=space.name,
    run_configuration=generation("Answer {question}")))
if x:
    rc = x.run_configuration
    r.eq("create_run_experiment", "fields",
         (val(x.type), x.dataset_id, x.evaluators, x.experiment_ids),
         ("RUN_EXPERIMENT", d.id, [], []))
    r.eq("create_run_experiment", "run_configuration",
         rc and (val(rc.experiment_type), rc.ai_integration_id, rc.model_name,
                 [(val(m.role), m.content) for m in rc.messages or []]),
         ("LLM_GENERATION", integration.id, "gpt-4o", [("USER", "Answer {question}")]))
    upd = r.op("update_run_experiment_name", lambda: c.tasks.update(
        task=x.id, name=r.name("py-run-task-renamed")))
    r.eq("update_run_experiment_name", "name", upd and upd.name, r.name("py-run-task-renamed"))
    again = r.op("update_run_configuration", lambda: c.tasks.update(
        task=x.id, run_configuration=generation("Again: {question}")))
    r.eq("update_run_configuration", "messages",
         again and again.run_configuration and
         [(val(m.role), m.content) for m in again.run_configuration.messages or []],
         [("USER", "Again: {question}")])
    xr = r.op("trigger_run_experiment", lambda: c.tasks.trigger_run(
        task=x.id, experiment_name=r.name("py-run-exp"), max_examples=2))
    if xr:
        ran = r.op("wait_for_run_experiment", lambda: c.tasks.wait_for_run(
            run_id=xr.id, poll_interval=0.2, timeout=60))
        if ran:
            r.eq("wait_for_run_experiment", "counts", counts(ran), ("COMPLETED", 2, 0, 0))
            made = ran.experiment_id and c.experiments.get(experiment=ran.experiment_id)
            r.eq("wait_for_run_experiment", "experiment",
                 made and (made.name, made.dataset_id), (r.name("py-run-exp"), d.id))
            outputs = ran.experiment_id and c.experiments.list_runs(
                experiment=ran.experiment_id, limit=100).experiment_runs
            r.eq("wait_for_run_experiment", "outputs",
                 sorted((x.output or "").split("\n")[-1] for x in outputs or []),
                 ["LABEL: irrelevant", "LABEL: irrelevant"])
    r.op("delete_run_experiment", lambda: c.tasks.delete(task=x.id))

c.ai_integrations.delete(integration=integration.id)
c.evaluators.delete(evaluator=ev.id)
c.experiments.delete(experiment=e.id)
c.datasets.delete(dataset=d.id)
r.done()
