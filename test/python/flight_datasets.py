"""The SDK's bulk paths over Arrow Flight, without force_http: datasets.create (10 000 rows),
datasets.list_examples(all=True), datasets.export_to_parquet, experiments.create (1 200 runs),
experiments.run (600 examples, a task and an evaluator, spans over OTLP/gRPC),
experiments.list_runs(all=True) and experiments.export_to_parquet.

argv: base URL, API key, Flight address (host:port), OTLP/gRPC address, mode ("ports": REST,
Flight and OTLP on their own ports; "single": ARIZE_SINGLE_HOST/PORT, one address for all),
a directory for what was read back. Prints one JSON line: the ids made and the SDK's answers;
the test reads the same data through REST and compares.
"""
import json
import math
import os
import sys
from datetime import datetime, timedelta, timezone
from urllib.parse import urlparse

os.environ.setdefault("DISABLE_PRERELEASE_WARNING", "true")

import pandas as pd  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from arize import ArizeClient  # noqa: E402
from arize.experiments.types import ExperimentTaskFieldNames  # noqa: E402

base, key, flight, otlp, mode, out = sys.argv[1:7]
url = urlparse(base)
flight_host, flight_port = flight.rsplit(":", 1)
otlp_host, otlp_port = otlp.rsplit(":", 1)
if mode == "single":
    client = ArizeClient(api_key=key, single_host=url.hostname, single_port=url.port,
                         api_scheme="http", flight_scheme="grpc", otlp_scheme="http")
    assert client.sdk_config.flight_port == url.port  
else:
    client = ArizeClient(api_key=key, api_host=url.hostname, api_scheme="http",
                         api_port=url.port, flight_host=flight_host,
                         flight_port=int(flight_port), flight_scheme="grpc",
                         otlp_host=otlp_host, otlp_port=int(otlp_port), otlp_scheme="http")

ROWS = 10_000


def example(i: int) -> dict:
    """Row i of the upload (the test builds the same rows to compare)."""
    row = {
        "question": f"q{i} " + "é" * (i % 3),
        "n": i,
        "score": i / 4,
        "metadata": {"k": i, "tag": f"t{i % 7}"},
        "flag": i % 2 == 0,
        "attributes.extra": {"a": i},
    }
    if i % 5:
        row["maybe"] = i
    return row


def plain(value):
    """A value read back, as JSON has it (NaN is no value)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def records(df: pd.DataFrame) -> list:
    return [{k: plain(v) for k, v in row.items()} for row in df.to_dict(orient="records")]


def dump(name: str, value) -> None:
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(value, f)


space = client.spaces.list().spaces[0]
suffix = f"{mode}-{os.getpid()}"
result = {"space_id": space.id}

dataset = client.datasets.create(name=f"flight-{suffix}", space=space.id,
                                 examples=[example(i) for i in range(ROWS)])
result["dataset_id"] = dataset.id

listed = client.datasets.list_examples(dataset=dataset.id, all=True)
dump("list_examples", [{"id": e.id, **{k: plain(v) for k, v in e.to_dict().items()}}
                       for e in listed.examples])
result["list_examples_has_more"] = listed.pagination.has_more

client.datasets.export_to_parquet(dataset=dataset.id, path=os.path.join(out, "examples.parquet"))
table = pq.read_table(os.path.join(out, "examples.parquet"))
result["examples_parquet_schema"] = {f.name: str(f.type) for f in table.schema}
dump("examples_parquet", records(table.to_pandas()))

ids = [e.id for e in listed.examples]
runs = [{"example_id": ids[i], "output": f"answer {i}", "eval.ok.score": float(i % 2),
         "note": f"n{i}"} for i in range(1200)]
experiment = client.experiments.create(
    name=f"flight-exp-{suffix}", dataset=dataset.id, experiment_runs=runs,
    task_fields=ExperimentTaskFieldNames(example_id="example_id", output="output"))
result["experiment_id"] = experiment.id

got = client.experiments.list_runs(experiment=experiment.id, all=True)
dump("list_runs", [{"id": r.id, "example_id": r.example_id, "output": r.output,
                    **{k: plain(v) for k, v in (r.additional_properties or {}).items()}}
                   for r in got.experiment_runs])
client.experiments.export_to_parquet(experiment=experiment.id,
                                     path=os.path.join(out, "runs.parquet"))
dump("runs_parquet", records(pq.read_table(os.path.join(out, "runs.parquet")).to_pandas()))

# experiments.run over 600 examples: the SDK's own loop, its task spans over OTLP/gRPC to the
# project the create_experiment_db_entry action named.
small = client.datasets.create(name=f"flight-run-{suffix}", space=space.id,
                               examples=[{"question": f"q{i}"} for i in range(600)])
result["run_dataset_id"] = small.id
started = datetime.now(timezone.utc) - timedelta(minutes=1)


def shout(dataset_row):
    return dataset_row["question"].upper()


def exact(output, dataset_row):
    return 1.0 if output == dataset_row["question"].upper() else 0.0


ran, frame = client.experiments.run(name=f"flight-run-{suffix}", dataset=small.id, task=shout,
                                    evaluators={"exact": exact}, concurrency=16)
result["run_experiment_id"] = ran.id
result["run_statuses"] = sorted(set(frame["execution_status"]))
project = f"experiment-{__import__('base64').b64decode(ran.id).decode().split(':')[1]}"
traced, cursor = set(), None
ended = datetime.now(timezone.utc) + timedelta(minutes=1)
while True:
    page = client.spans.list(project=project, space=space.id, start_time=started,
                             end_time=ended, limit=500, cursor=cursor)
    traced |= {s.context.trace_id for s in page.spans or []}
    cursor = page.pagination.next_cursor if page.pagination else None
    if not cursor:
        break
result["run_traces_missing"] = sorted(set(frame["result.trace.id"]) - traced)
result["spans_traced"] = len(traced)
ran_runs = client.experiments.list_runs(experiment=ran.id, all=True)
dump("ran_runs", [{"id": r.id, "example_id": r.example_id, "output": r.output,
                   **{k: plain(v) for k, v in (r.additional_properties or {}).items()}}
                  for r in ran_runs.experiment_runs])
print(json.dumps(result))
